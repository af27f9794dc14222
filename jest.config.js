'use strict'

// Two projects: unit tests are pure and fast; integration tests run against the
// real local stack (Kafka + MariaDB), which globalSetup brings up.
module.exports = {
  // Integration tests wait for conditions on a real broker; none sleeps.
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/*/test/unit/**/*.test.js', '<rootDir>/test/unit/**/*.test.js']
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      testMatch: ['<rootDir>/*/test/integration/**/*.test.js'],
      globalSetup: '<rootDir>/test/global-setup.js',
      globalTeardown: '<rootDir>/test/global-teardown.js'
    }
  ]
}
