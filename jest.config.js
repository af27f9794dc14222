'use strict'

// Two projects: unit tests are pure and fast; integration tests run against the
// real local stack (Kafka + MariaDB), which globalSetup brings up.
// Jest maps every file under its roots: only the code, never the local stack's
// data (.stack: Kafka logs, MariaDB's files, a seeded ledger of many GB).
const roots = ['api-adapter', 'handlers', 'shared', 'perf', 'scripts', 'helm', 'test'].map((d) => `<rootDir>/${d}`)

module.exports = {
  // Integration tests wait for conditions on a real broker; none sleeps.
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      roots,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/*/test/unit/**/*.test.js', '<rootDir>/test/unit/**/*.test.js']
    },
    {
      displayName: 'integration',
      roots,
      testEnvironment: 'node',
      testMatch: ['<rootDir>/*/test/integration/**/*.test.js'],
      globalSetup: '<rootDir>/test/global-setup.js',
      globalTeardown: '<rootDir>/test/global-teardown.js'
    }
  ]
}
