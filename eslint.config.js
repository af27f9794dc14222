'use strict'

const neostandard = require('neostandard')

module.exports = [
  ...neostandard({ ignores: ['node_modules/**', '**/node_modules/**', '.stack/**', 'coverage/**', 'perf/results/**'] }),
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: {
      // DESIGN.md rule 8: only the config module reads the environment.
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through @switchyard/shared/config.' }],
      // STYLE.md: only the kafka client module requires kafkajs.
      'no-restricted-modules': ['error', { paths: [{ name: 'kafkajs', message: 'Use @switchyard/shared/kafka.' }] }]
    }
  },
  {
    files: ['shared/src/config.js'],
    rules: { 'no-restricted-properties': 'off' }
  },
  {
    files: ['shared/src/kafka/client.js'],
    rules: { 'no-restricted-modules': 'off' }
  },
  {
    files: ['**/test/**/*.js', 'test/**/*.js'],
    languageOptions: { globals: { describe: 'readonly', it: 'readonly', test: 'readonly', expect: 'readonly', beforeAll: 'readonly', afterAll: 'readonly', beforeEach: 'readonly', afterEach: 'readonly', jest: 'readonly' } }
  }
]
