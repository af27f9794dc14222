'use strict'

const pino = require('pino')
const { createLifecycle } = require('../../src/lifecycle')
const { shippedMigrations } = require('../../src/db/migrate')
const { guardSchema, compareMigrations, missingMessage } = require('../../src/db/schema-check')

const SHIPPED = ['20260101000001_a.js', '20260101000002_b.js', '20260101000003_c.js']

describe('compareMigrations', () => {
  test('equal: nothing missing, nothing unknown', () => {
    expect(compareMigrations(SHIPPED, SHIPPED)).toEqual({ missing: [], unknown: [] })
  })

  test('missing: what the build ships and the database has not applied, in the order they apply', () => {
    expect(compareMigrations(SHIPPED, [SHIPPED[0]])).toEqual({ missing: [SHIPPED[1], SHIPPED[2]], unknown: [] })
    expect(compareMigrations(SHIPPED, [])).toEqual({ missing: SHIPPED, unknown: [] })
  })

  test('unknown: what a newer release applied', () => {
    expect(compareMigrations(SHIPPED, [...SHIPPED, '20270101000001_newer.js'])).toEqual({ missing: [], unknown: ['20270101000001_newer.js'] })
  })

  test('both at once: an older build against a database of a release that is not its successor', () => {
    expect(compareMigrations(SHIPPED, [SHIPPED[0], SHIPPED[1], 'x.js'])).toEqual({ missing: [SHIPPED[2]], unknown: ['x.js'] })
  })
})

test('the build ships its migrations directory, in the order knex applies them', () => {
  const shipped = shippedMigrations()
  expect(shipped.length).toBeGreaterThan(0)
  expect(shipped).toEqual([...shipped].sort())
  for (const name of shipped) expect(name).toMatch(/^\d{14}_\w+\.js$/)
})

test('the fatal message names every missing migration and what applies them', () => {
  const message = missingMessage('switchyard', [SHIPPED[1], SHIPPED[2]])
  expect(message).toContain('database "switchyard" lacks 2 migrations this build needs: 20260101000002_b.js, 20260101000003_c.js.')
  expect(message).toContain('`npm run migrate`')
  expect(message).toContain('`<fullname>-migrations`')
  expect(missingMessage('sy', [SHIPPED[0]], { exists: false })).toMatch(/^database "sy" does not exist, so it lacks the migration this build needs: 20260101000001_a\.js\. Apply it with/)
})

/**
 * A knex stand-in that answers `db(table).select(...).orderBy(...)` with the
 * next of `answers` (the rows of knex_migrations, or an error thrown), the
 * last one again once they run out.
 * @param {Array<string[] | Error>} answers
 */
function fakeDb (answers) {
  const asked = []
  const db = (table) => ({
    select: () => ({
      orderBy: async () => {
        asked.push(table)
        const answer = answers[Math.min(asked.length, answers.length) - 1]
        if (answer instanceof Error) throw answer
        return answer.map((name, i) => ({ id: i + 1, name }))
      }
    })
  })
  return Object.assign(db, { asked })
}

const driverError = (code) => Object.assign(new Error(code), { code })

function setUp (answers) {
  const lines = []
  const logger = pino({ level: 'debug' }, { write: (s) => lines.push(JSON.parse(s)) })
  const exits = []
  const lifecycle = createLifecycle({ logger, timeoutMs: 60000, exit: (code) => exits.push(code) })
  const db = fakeDb(answers)
  const guard = () => guardSchema({ db: /** @type {any} */ (db), database: 'sy', logger, lifecycle, shipped: SHIPPED, retryMs: 1, maxRetryMs: 5 })
  const logged = (level) => lines.filter((l) => l.level === pino.levels.values[level]).map((l) => l.msg)
  return { db, lifecycle, exits, guard, logged }
}

describe('guardSchema', () => {
  test('a current schema: one query, nothing said, and the process goes on', async () => {
    const { db, exits, guard, logged } = setUp([SHIPPED])
    const { checked } = await guard()
    await checked
    expect(db.asked).toEqual(['knex_migrations'])
    expect(exits).toEqual([])
    expect([...logged('warn'), ...logged('fatal')]).toEqual([])
  })

  test('a missing migration: a fatal line naming it, the lifecycle closes and exits with 1, and the start goes no further', async () => {
    const { exits, guard, logged } = setUp([SHIPPED.slice(0, 2)])
    await expect(guard()).rejects.toThrow('lacks a migration this build needs: 20260101000003_c.js')
    expect(logged('fatal')).toEqual([missingMessage('sy', [SHIPPED[2]])])
    expect(exits).toEqual([1])
  })

  test('no migrations table, or no database: every migration is missing', async () => {
    const noTable = setUp([driverError('ER_NO_SUCH_TABLE')])
    await expect(noTable.guard()).rejects.toThrow(missingMessage('sy', SHIPPED))
    expect(noTable.exits).toEqual([1])
    const noDatabase = setUp([driverError('ER_BAD_DB_ERROR')])
    await expect(noDatabase.guard()).rejects.toThrow(missingMessage('sy', SHIPPED, { exists: false }))
    expect(noDatabase.exits).toEqual([1])
  })

  test('a migration this build does not know: one warning naming it, and the process goes on', async () => {
    const { exits, guard, logged } = setUp([[...SHIPPED, '20270101000001_newer.js']])
    await (await guard()).checked
    expect(logged('warn')).toEqual([expect.stringContaining('has a migration this build does not know: 20270101000001_newer.js.')])
    expect(exits).toEqual([])
  })

  test('a database that does not answer yet: the start goes on, one warning per kind of failure, checked once it answers', async () => {
    const refused = driverError('ECONNREFUSED')
    const { db, exits, guard, logged } = setUp([refused, refused, driverError('ER_ACCESS_DENIED_ERROR'), refused, SHIPPED])
    const { checked } = await guard()
    expect(db.asked).toHaveLength(1)
    await checked
    expect(db.asked).toHaveLength(5)
    expect(logged('warn')).toEqual([
      expect.stringContaining('(ECONNREFUSED)'),
      expect.stringContaining('(ER_ACCESS_DENIED_ERROR)'),
      expect.stringContaining('(ECONNREFUSED)')
    ])
    expect(logged('info')).toEqual(['database "sy" answers and has every migration this build needs'])
    expect(exits).toEqual([])
  })

  test('a database that answers later with a missing migration ends the process then', async () => {
    const { exits, guard, logged } = setUp([driverError('ECONNREFUSED'), SHIPPED.slice(0, 1)])
    let checked = false
    ;(await guard()).checked.then(() => { checked = true })
    await new Promise((resolve) => { const poll = () => (exits.length ? resolve(undefined) : setTimeout(poll, 1)); poll() })
    expect(exits).toEqual([1])
    expect(logged('fatal')).toEqual([missingMessage('sy', SHIPPED.slice(1))])
    expect(checked).toBe(false)
  })

  test('shutdown while the database does not answer stops asking', async () => {
    const { db, lifecycle, guard } = setUp([driverError('ECONNREFUSED')])
    await guard()
    await lifecycle.shutdown('test')
    const asked = db.asked.length
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(db.asked).toHaveLength(asked)
  })
})
