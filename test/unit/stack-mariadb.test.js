'use strict'

const { dataDirPlan } = require('../../scripts/stack/mariadb')

describe('the local MariaDB data directory', () => {
  test('a complete one is used as it is', () => {
    expect(dataDirPlan({ data: true, systemTables: true, staging: false })).toEqual({ initialise: false, discard: [] })
  })

  test('none is initialised', () => {
    expect(dataDirPlan({ data: false, systemTables: false, staging: false })).toEqual({ initialise: true, discard: [] })
  })

  test('a staging directory is what an interrupted set-up left: it is removed, and the set-up done again', () => {
    expect(dataDirPlan({ data: false, systemTables: false, staging: true })).toEqual({ initialise: true, discard: ['staging'] })
    // Next to a complete data directory it is only removed.
    expect(dataDirPlan({ data: true, systemTables: true, staging: true })).toEqual({ initialise: false, discard: ['staging'] })
  })

  test('one without system tables (left by an interrupted set-up in place) is removed and initialised again', () => {
    expect(dataDirPlan({ data: true, systemTables: false, staging: false })).toEqual({ initialise: true, discard: ['data'] })
    expect(dataDirPlan({ data: true, systemTables: false, staging: true })).toEqual({ initialise: true, discard: ['staging', 'data'] })
  })
})
