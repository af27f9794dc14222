'use strict'

// A process must not run against a database that lacks a migration its code
// needs: it would start, then fail in confusing ways (SQL errors on a missing
// column, messages dead-lettered). This happens when an image is upgraded but
// its migrations were not applied (the chart's hook failed or was skipped, an
// old local database). So every process compares the migrations this build
// ships with the rows knex keeps in its migrations table, one query, and
// refuses to run when one is missing.
//
// The opposite is fine: during a rolling upgrade the migrations hook applies
// the new release's migrations while the old release's pods keep running,
// and migrations are written to be backward compatible with the release
// before (docs/kubernetes.md). A migration this build does not know is
// therefore worth a warning, not a stop.

const { shippedMigrations, MIGRATIONS_TABLE } = require('./migrate')

/** The database's answers that decide: no migrations table, no database at all. */
const NOTHING_APPLIED = new Set(['ER_NO_SUCH_TABLE', 'ER_BAD_DB_ERROR'])

/**
 * @param {readonly string[]} shipped the migrations this build ships
 * @param {readonly string[]} applied the migrations recorded in the database
 * @returns {{ missing: string[], unknown: string[] }} missing: shipped but not applied, in the
 *   order they apply; unknown: applied but not shipped (a newer release's), in the order given
 */
function compareMigrations (shipped, applied) {
  const isApplied = new Set(applied)
  const isShipped = new Set(shipped)
  return {
    missing: shipped.filter((name) => !isApplied.has(name)),
    unknown: applied.filter((name) => !isShipped.has(name))
  }
}

/**
 * The migrations the database records, in one query.
 * @param {import('knex').Knex} db
 * @returns {Promise<{ exists: boolean, applied: string[] }>} exists: false when the database
 *   itself does not exist (then nothing is applied)
 * @throws when the database does not answer the question (down, unreachable, refusing us)
 */
async function appliedMigrations (db) {
  try {
    const rows = await db(MIGRATIONS_TABLE).select('name').orderBy('id')
    return { exists: true, applied: rows.map((r) => r.name) }
  } catch (/** @type {any} */ err) {
    if (!NOTHING_APPLIED.has(err.code)) throw err
    return { exists: err.code !== 'ER_BAD_DB_ERROR', applied: [] }
  }
}

/**
 * @param {string} database @param {string[]} missing @param {{ exists?: boolean }} [found]
 * @returns {string} what the fatal log line says
 */
function missingMessage (database, missing, { exists = true } = {}) {
  const one = missing.length === 1
  const what = exists
    ? `database "${database}" lacks ${one ? 'a migration' : `${missing.length} migrations`} this build needs`
    : `database "${database}" does not exist, so it lacks ${one ? 'the migration' : `all ${missing.length} migrations`} this build needs`
  return `${what}: ${missing.join(', ')}. Apply ${one ? 'it' : 'them'} with \`npm run migrate\` (\`node scripts/migrate.js\` in the image); ` +
    'on Kubernetes the chart\'s migrations hook job (`<fullname>-migrations`) applies them on every `helm install` and `helm upgrade`, ' +
    `with docker compose the \`migrate\` service does. This process stops; start it again once ${one ? 'it is' : 'they are'} applied.`
}

/** @param {string} database @param {string[]} unknown @returns {string} what the warning says */
function unknownMessage (database, unknown) {
  const one = unknown.length === 1
  return `database "${database}" has ${one ? 'a migration' : `${unknown.length} migrations`} this build does not know: ` +
    `${unknown.join(', ')}. A newer release applied ${one ? 'it' : 'them'}; this process runs on, since migrations stay ` +
    'backward compatible with the release before theirs (a rolling upgrade in progress). Upgrade this process.'
}

/**
 * Refuses to run against a database that lacks a migration this build ships:
 * logs which at fatal level and ends the process through the lifecycle (exit
 * code 1). The question is asked once the database answers. That is usually
 * at once, and the caller goes on only with a schema that is current. A
 * database that does not answer yet (it is starting too, failing over, or
 * refusing our credentials) is no reason to stop: the process starts as it
 * always has, its /health reporting the datastore DOWN, and the question is
 * asked again, with backoff, until the database answers.
 *
 * @param {{ db: import('knex').Knex, database: string, logger: import('pino').Logger,
 *   lifecycle: ReturnType<typeof import('../lifecycle').createLifecycle>,
 *   shipped?: string[], retryMs?: number, maxRetryMs?: number }} opts
 *   shipped: this build's migrations (tests name others); retryMs, maxRetryMs: the first and the
 *   longest pause between two attempts while the database does not answer
 * @returns {Promise<{ checked: Promise<void> }>} resolves after the first attempt; `checked`
 *   resolves once the schema is known to be current, and never when it is not or the process
 *   stops first (the lifecycle is ending the process then): work that must not touch a stale
 *   schema, such as consuming, waits for it
 */
async function guardSchema ({ db, database, logger, lifecycle, shipped = shippedMigrations(), retryMs = 500, maxRetryMs = 5000 }) {
  let stopped = false
  /** The next attempt, while the database does not answer. @type {NodeJS.Timeout | undefined} */
  let timer
  lifecycle.add('schema check', () => { stopped = true; clearTimeout(timer) })
  /** The error code the last warning was about, so that an outage is not reported at every retry. @type {string | undefined} */
  let waitingOn

  /** One attempt. @returns {Promise<boolean>} whether the database answered (with a current schema) */
  async function attempt () {
    let found
    try {
      found = await appliedMigrations(db)
    } catch (/** @type {any} */ err) {
      // Shutdown closes the pool under a query in flight: that is no news.
      if (stopped) return false
      const why = err.code || err.name
      if (why !== waitingOn) {
        logger.warn({ err, database }, `cannot read the migrations of database "${database}" yet (${why}); ` +
          'asking again until it answers; handlers start consuming once it has')
      }
      waitingOn = why
      return false
    }
    const { missing, unknown } = compareMigrations(shipped, found.applied)
    if (missing.length) {
      const message = missingMessage(database, missing, found)
      logger.fatal({ database, missing }, message)
      await lifecycle.fail('the database lacks migrations this build needs')
      // Reached only where the lifecycle's exit does not end the process (tests).
      throw new Error(message)
    }
    if (unknown.length) logger.warn({ database, unknown }, unknownMessage(database, unknown))
    if (waitingOn) logger.info({ database }, `database "${database}" answers and has every migration this build needs`)
    return true
  }

  if (await attempt()) return { checked: Promise.resolve() }
  const checked = new Promise((resolve) => {
    let retry = 0
    const later = () => {
      timer = setTimeout(() => {
        attempt().then((answered) => {
          if (answered) resolve(undefined)
          else if (!stopped) later()
        }, () => {}) // a stale schema: the lifecycle is ending the process
      }, Math.min(maxRetryMs, retryMs * 2 ** retry++))
    }
    later()
  })
  return { checked }
}

module.exports = { guardSchema, compareMigrations, appliedMigrations, missingMessage, unknownMessage }
