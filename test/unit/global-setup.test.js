'use strict'

// The integration run's setup, with the stack and the database faked: when a
// step fails, it stops the servers this run started (Jest then skips teardown).

jest.mock('../../scripts/stack/index', () => ({ up: jest.fn(), down: jest.fn(async () => {}), migrate: jest.fn() }))
jest.mock('../../shared/src/db', () => ({ createDb: () => ({ raw: async () => {}, destroy: async () => {} }) }))

const stack = require('../../scripts/stack/index')
const globalSetup = require('../global-setup')

describe('the integration tests global setup', () => {
  let log
  beforeEach(() => {
    jest.clearAllMocks()
    log = jest.spyOn(console, 'log').mockImplementation(() => {})
  })
  afterEach(() => log.mockRestore())

  test('stops the servers it started when a step after stack.up fails', async () => {
    stack.up.mockResolvedValue({ started: { kafka: true, mariadb: false } })
    stack.migrate.mockRejectedValue(new Error('migration failed'))
    await expect(globalSetup()).rejects.toThrow('migration failed')
    expect(stack.down).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ only: ['kafka'] }))
  })

  test('stops what stack.up started before it failed', async () => {
    stack.up.mockRejectedValue(Object.assign(new Error('topics'), { started: { kafka: false, mariadb: true } }))
    await expect(globalSetup()).rejects.toThrow('topics')
    expect(stack.migrate).not.toHaveBeenCalled()
    expect(stack.down).toHaveBeenCalledWith(expect.anything(), expect.objectContaining({ only: ['mariadb'] }))
  })

  test('stops nothing it did not start', async () => {
    stack.up.mockResolvedValue({ started: { kafka: false, mariadb: false } })
    stack.migrate.mockRejectedValue(new Error('migration failed'))
    await expect(globalSetup()).rejects.toThrow('migration failed')
    expect(stack.down).not.toHaveBeenCalled()
  })
})
