'use strict'

// The local stack: a real Kafka broker and a real MariaDB server that the
// project starts itself, used by `npm start`, `npm test` and `npm run stack:*`.
// Services at non-loopback addresses (docker-compose, a cloud service) or with
// STACK=off are never started: only checked for reachability by the caller.

const kafka = require('./kafka')
const mariadb = require('./mariadb')
const { stackPaths, localServices } = require('./paths')
const apt = require('./apt')
const { isRoot } = require('./proc')
const { createKafkaFromConfig } = require('../../shared/src/kafka/client')
const { allTopicNames, ensureTopics } = require('../../shared/src/kafka/topics')
const { createDb, ensureDatabase, migrateLatest } = require('../../shared/src/db')

/**
 * Brings the stack up: local servers, the database and migrations, the topics.
 * @param {Readonly<Record<string, any>>} config
 * @param {{ say?: (m: string) => void, databases?: string[], migrations?: boolean }} [opts]
 *   migrations: false creates the databases but leaves their migrations to the caller (the
 *   benchmark applies those of the code it measures, which may be another revision's)
 */
async function up (config, { say = () => {}, databases = [config.DB_NAME], migrations = true } = {}) {
  const paths = stackPaths(config)
  const local = localServices(config)
  const started = { kafka: false, mariadb: false }
  /** The local servers' pids (null for a service not run here). @type {{ kafka: number | null, mariadb: number | null }} */
  const pids = { kafka: null, mariadb: null }
  // A run killed while installing packages may have left our policy-rc.d
  // behind, which keeps every later package on the machine from starting its
  // service; the next run removes it even when it has nothing to install.
  if (isRoot() && (local.kafka || local.mariadb)) apt.removeLeftoverPolicy(say)
  try {
    // Start both servers concurrently: Kafka's JVM start-up dominates.
    const results = await Promise.allSettled([
      local.kafka && kafka.up({ paths, port: local.kafka.port, version: config.STACK_KAFKA_VERSION, heap: config.STACK_KAFKA_HEAP, say }),
      local.mariadb && mariadb.up({ paths, port: local.mariadb.port, bufferPool: config.STACK_DB_BUFFER_POOL, redoLog: config.STACK_DB_REDO_LOG, user: config.DB_USER, password: config.DB_PASSWORD, databases, say })
    ])
    started.kafka = results[0].status === 'fulfilled' && Boolean(results[0].value && results[0].value.started)
    started.mariadb = results[1].status === 'fulfilled' && Boolean(results[1].value && results[1].value.started)
    pids.kafka = (results[0].status === 'fulfilled' && results[0].value && results[0].value.pid) || null
    pids.mariadb = (results[1].status === 'fulfilled' && results[1].value && results[1].value.pid) || null
    const failed = results.find((r) => r.status === 'rejected')
    if (failed && failed.status === 'rejected') throw failed.reason
    if (migrations) for (const name of databases) await migrate(config, name, say)
    await createTopics(config, say)
  } catch (err) {
    // Tell the caller what this call started, so it can stop exactly that.
    throw Object.assign(err, { started })
  }
  // The local MariaDB is reached more cheaply over its socket than over TCP.
  const dbSocket = local.mariadb ? mariadb.socketPath(paths, local.mariadb.port) : null
  return { started, local, dbSocket, pids }
}

/** @param {Readonly<Record<string, any>>} config @param {string} database @param {(m: string) => void} say */
async function migrate (config, database, say = () => {}) {
  await ensureDatabase(config, database)
  const db = createDb(config, { database })
  try {
    const applied = await migrateLatest(db)
    if (applied.length) say(`applied ${applied.length} migration(s) to ${database}`)
  } finally {
    await db.destroy()
  }
}

/** @param {Readonly<Record<string, any>>} config @param {(m: string) => void} say */
async function createTopics (config, say = () => {}) {
  const admin = createKafkaFromConfig(config).admin()
  await admin.connect()
  try {
    const created = await ensureTopics(admin, allTopicNames(config), { partitions: config.KAFKA_PARTITIONS, replicationFactor: config.KAFKA_REPLICATION_FACTOR })
    if (created.length) say(`created ${created.length} topic(s)`)
  } finally {
    await admin.disconnect()
  }
}

/**
 * Stops only what the project started (the servers with our pid files).
 * @param {Readonly<Record<string, any>>} config
 * @param {{ say?: (m: string) => void, only?: string[] }} [opts]
 */
async function down (config, { say = () => {}, only = ['kafka', 'mariadb'] } = {}) {
  const paths = stackPaths(config)
  const local = localServices(config)
  if (local.kafka && only.includes('kafka') && await kafka.down({ paths, port: local.kafka.port })) say('Kafka stopped')
  if (local.mariadb && only.includes('mariadb') && await mariadb.down({ paths, port: local.mariadb.port })) say('MariaDB stopped')
}

/** @param {Readonly<Record<string, any>>} config */
async function status (config) {
  const paths = stackPaths(config)
  const local = localServices(config)
  return {
    kafka: local.kafka ? { local: true, ...await kafka.status({ paths, port: local.kafka.port }), secured: kafka.securedListeners(paths, local.kafka.port) } : { local: false, brokers: config.KAFKA_BROKERS },
    mariadb: local.mariadb ? { local: true, ...await mariadb.status({ paths, port: local.mariadb.port }) } : { local: false, host: `${config.DB_HOST}:${config.DB_PORT}` }
  }
}

module.exports = { up, down, status, migrate, createTopics }
