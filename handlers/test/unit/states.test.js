'use strict'

const { S } = require('../../src/common/states')
const { STATES } = require('../../../shared/src/db/migrations/20261201000009_state_enum')

test('every state the handlers write is one the ledger\'s ENUM holds, and the other way round', () => {
  // A state missing from the column would be refused by the database (strict
  // mode) and its message dead-lettered: adding one needs a migration.
  expect([...STATES].sort()).toEqual(Object.values(S).sort())
})
