'use strict'

// While the database is away, knex warns of every connection it fails to
// make: the process's log gets the first, then one a minute with a count.

const { createDb } = require('../../src/db')
const { loadConfig } = require('../../src/config')

test("knex's warning for each connection it cannot make is logged once, however many queries fail", async () => {
  /** @type {{ level: string, obj: any, msg: string }[]} */
  const lines = []
  const record = (/** @type {string} */ level) => (/** @type {any} */ obj, /** @type {string} */ msg) => lines.push({ level, obj, msg })
  const logger = /** @type {any} */ ({ warn: record('warn'), error: record('error'), debug: () => {} })
  // Nothing listens on port 1: every connection is refused at once.
  const db = createDb(loadConfig({ STACK: 'off', DB_SOCKET: '', DB_HOST: '127.0.0.1', DB_PORT: '1' }), { logger })
  try {
    for (let i = 0; i < 5; i++) await expect(db.raw('SELECT 1')).rejects.toThrow(/ECONNREFUSED/)
  } finally {
    await db.destroy()
  }
  const refused = lines.filter((l) => /^Acquire connection error: .*ECONNREFUSED/.test(l.msg))
  expect(refused.map((l) => [l.level, l.obj])).toEqual([['warn', { component: 'knex' }]])
})
