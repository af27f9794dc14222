'use strict'

// A private MariaDB server for local use and tests: Debian's packages, our own
// data directory under STACK_DIR, our own port (never 3306) and socket, and
// durable settings so benchmark numbers are honest.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { livePid, spawnDaemon, stopPid, waitFor, which, run, isRoot, assertPortFree } = require('./proc')
const apt = require('./apt')
const { ensureTls } = require('./tls')

const SERVER_BINARIES = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld']
/**
 * How the pid check knows our server: the program, whichever binary it is,
 * and this stack's data directory, which no other server is started with.
 * @param {{ data: string }} f
 */
const ownServer = (f) => ({ names: ['mariadbd', 'mysqld'], arg: `--datadir=${f.data}` })

function findServer () {
  return SERVER_BINARIES.find((p) => fs.existsSync(p)) || which('mariadbd')
}

const findInstaller = () => which('mariadb-install-db') || which('mysql_install_db')

/** Installs Debian's MariaDB (without starting a system server). @param {(m: string) => void} say */
function install (say) {
  if (!apt.canInstall()) {
    throw new Error('MariaDB is not installed. Install it with `sudo apt-get install mariadb-server` ' +
      '(or point DB_HOST at an existing MySQL 8 / MariaDB server and set STACK=off).')
  }
  say('installing MariaDB from Debian packages (once)…')
  apt.install(['mariadb-server', 'mariadb-client'], say)
}

/** @param {import('./paths').StackPaths} paths @param {number} port */
function files (paths, port) {
  const dir = paths.mariadb
  // Unix socket paths are limited to ~108 bytes; fall back to the temp dir.
  let socket = path.join(dir, 'mysqld.sock')
  if (socket.length > 100) {
    socket = path.join(os.tmpdir(), `switchyard-${crypto.createHash('sha1').update(dir).digest('hex').slice(0, 12)}.sock`)
  }
  return {
    dir,
    port,
    data: path.join(dir, 'data'),
    staging: path.join(dir, 'data.init'),
    socket,
    pidFile: path.join(dir, 'mariadb.pid'),
    logFile: path.join(dir, 'mariadb.log')
  }
}

/** Runs SQL as the server's administrative user over the private socket. */
function adminSql (f, sql) {
  const client = which('mariadb') || which('mysql')
  if (!client) throw new Error('the mariadb client is missing; install mariadb-client')
  return run(client, ['--no-defaults', `--socket=${f.socket}`, '-u', os.userInfo().username, '--batch', '--skip-column-names', '-e', sql])
}

/** '256M', '4G' or a number of bytes → bytes. @param {string} size @param {string} name the setting */
function sizeBytes (size, name) {
  const m = /^(\d+)([KMG]?)$/i.exec(String(size).trim())
  if (!m) throw new Error(`${name}: ${size} is not a size like 512M or 2G`)
  return Number(m[1]) * 1024 ** ' KMG'.indexOf((m[2] || ' ').toUpperCase())
}

/** @param {string} s */
const quote = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

// Background page flushing sized for an SSD rather than InnoDB's default of
// 200 IOPS, which let dirty pages and the checkpoint age pile up during a
// benchmark and then flushed them in a hurry, in the middle of later runs.
const IO_CAPACITY = 1000
const IO_CAPACITY_MAX = 4000

/**
 * What to do with the data directory before the server starts.
 * mariadb-install-db fills a staging directory next to it, which is renamed
 * into place only once it succeeded: so a data directory is a complete one,
 * and a staging directory is what an interrupted set-up left. A data directory
 * without the system tables (`mysql/`) is the empty or half-made one that an
 * interrupted set-up of earlier versions left (they initialised in place): it
 * holds nothing a server could use. One with them is trusted, as before (so a
 * set-up in place interrupted after it made `mysql/` is not told apart; it
 * needs the data directory removed by hand).
 * @param {{ data: boolean, systemTables: boolean, staging: boolean }} found which of them exist
 * @returns {{ initialise: boolean, discard: Array<'data' | 'staging'> }}
 */
function dataDirPlan ({ data, systemTables, staging }) {
  /** @type {Array<'data' | 'staging'>} */
  const discard = []
  if (staging) discard.push('staging')
  if (data && !systemTables) discard.push('data')
  return { initialise: !(data && systemTables), discard }
}

/**
 * Initialises the data directory unless a complete one exists, first removing
 * what an interrupted set-up left (and saying so).
 * @param {import('./paths').StackPaths} paths @param {ReturnType<typeof files>} f
 * @param {string[]} asRoot @param {(m: string) => void} say
 */
function ensureDataDir (paths, f, asRoot, say) {
  const plan = dataDirPlan({ data: fs.existsSync(f.data), systemTables: fs.existsSync(path.join(f.data, 'mysql')), staging: fs.existsSync(f.staging) })
  for (const what of plan.discard) {
    const dir = what === 'data' ? f.data : f.staging
    say(`removing ${path.relative(paths.root, dir)}: an unfinished MariaDB data directory, left by an interrupted set-up`)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  if (!plan.initialise) return
  const installer = findInstaller()
  if (!installer) throw new Error('mariadb-install-db is missing; install mariadb-server')
  say('initialising the MariaDB data directory (once)…')
  fs.mkdirSync(f.staging, { recursive: true })
  run(installer, ['--no-defaults', `--datadir=${f.staging}`, ...asRoot, '--auth-root-authentication-method=socket', '--skip-test-db'])
  // The server keeps no absolute paths in its files, so the directory moves.
  fs.renameSync(f.staging, f.data)
}

/**
 * @param {{ paths: import('./paths').StackPaths, port: number, bufferPool: string, redoLog: string,
 *   user: string, password: string, databases: string[], say: (m: string) => void }} opts
 */
async function up ({ paths, port, bufferPool, redoLog, user, password, databases, say }) {
  const f = files(paths, port)
  const tls = ensureTls(paths, say)
  let pid = livePid(f.pidFile, ownServer(f))
  if (pid) {
    await answers(f, pid)
    // Started by an earlier version of this script, without TLS: not the
    // server it would start now.
    if (adminSql(f, 'SELECT @@have_ssl').trim() !== 'YES') {
      say('restarting the local MariaDB: its settings have changed (TLS)')
      await stopPid(pid, 60000)
      pid = null
    }
  }
  const started = !pid
  if (!pid) {
    await assertPortFree(port, 'MariaDB', 'DB_PORT')
    let server = findServer()
    if (!server) { install(say); server = findServer() }
    if (!server) throw new Error('MariaDB installation did not provide mariadbd')
    const asRoot = isRoot() ? ['--user=root'] : []
    ensureDataDir(paths, f, asRoot, say)
    say(`starting MariaDB on 127.0.0.1:${port} (log: ${path.relative(paths.root, f.logFile)})`)
    pid = spawnDaemon(server, [
      '--no-defaults',
      ...asRoot,
      `--datadir=${f.data}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${f.socket}`,
      `--pid-file=${path.join(f.dir, 'mariadbd.pid')}`,
      `--log-error=${f.logFile}`,
      // Durable: every commit is fsync'd (PERF.md: numbers are only honest so).
      '--innodb-flush-log-at-trx-commit=1',
      `--innodb-buffer-pool-size=${bufferPool}`,
      `--innodb-log-file-size=${redoLog}`,
      `--innodb-io-capacity=${IO_CAPACITY}`,
      `--innodb-io-capacity-max=${IO_CAPACITY_MAX}`,
      '--max-connections=500',
      '--max-allowed-packet=64M',
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_bin',
      '--skip-name-resolve',
      // TLS for clients that ask for it (DB_TLS); plain TCP and the socket as before.
      `--ssl-ca=${tls.ca}`,
      `--ssl-cert=${tls.serverCert}`,
      `--ssl-key=${tls.serverKey}`
    ], { pidFile: f.pidFile, logFile: path.join(f.dir, 'mariadb.out') })
    await answers(f, pid)
  }
  // A running server started with a smaller buffer pool or redo log grows to
  // the one asked for (InnoDB resizes both online); neither shrinks under a
  // running workload.
  if (!started) {
    for (const [variable, size, name, what] of [['innodb_buffer_pool_size', bufferPool, 'STACK_DB_BUFFER_POOL', 'buffer pool'],
      ['innodb_log_file_size', redoLog, 'STACK_DB_REDO_LOG', 'redo log']]) {
      const wanted = sizeBytes(size, name)
      if (wanted > Number(adminSql(f, `SELECT @@${variable}`).trim())) {
        say(`growing the MariaDB ${what} to ${size}`)
        adminSql(f, `SET GLOBAL ${variable} = ${wanted}`)
      }
    }
    adminSql(f, `SET GLOBAL innodb_io_capacity_max = ${IO_CAPACITY_MAX}; SET GLOBAL innodb_io_capacity = ${IO_CAPACITY}`)
  }
  // Idempotent bootstrap: the application user and its databases.
  const statements = [
    `CREATE USER IF NOT EXISTS ${quote(user)}@'127.0.0.1' IDENTIFIED BY ${quote(password)}`,
    `CREATE USER IF NOT EXISTS ${quote(user)}@'localhost' IDENTIFIED BY ${quote(password)}`,
    `ALTER USER ${quote(user)}@'127.0.0.1' IDENTIFIED BY ${quote(password)}`,
    `ALTER USER ${quote(user)}@'localhost' IDENTIFIED BY ${quote(password)}`,
    ...databases.map((db) => `CREATE DATABASE IF NOT EXISTS \`${db.replace(/`/g, '')}\``),
    // A private server for this project only: the app user may create test databases.
    `GRANT ALL PRIVILEGES ON *.* TO ${quote(user)}@'127.0.0.1'`,
    `GRANT ALL PRIVILEGES ON *.* TO ${quote(user)}@'localhost'`
  ]
  adminSql(f, statements.join(';\n'))
  return { pid, started }
}

/** Waits for the server to answer. @param {ReturnType<typeof files>} f @param {number} pid */
async function answers (f, pid) {
  await waitFor(async () => { adminSql(f, 'SELECT 1'); return true }, { what: 'MariaDB', timeoutMs: 60000, pid, logFiles: [f.logFile] })
}

/**
 * Runs SQL as the local server's administrative user (tests make users that
 * only TLS, or only a client certificate, may use).
 * @param {{ paths: import('./paths').StackPaths, port: number }} opts @param {string} statements
 */
const sql = ({ paths, port }, statements) => adminSql(files(paths, port), statements)

/** @param {{ paths: import('./paths').StackPaths, port: number }} opts */
async function down ({ paths, port }) {
  const f = files(paths, port)
  const pid = livePid(f.pidFile, ownServer(f))
  if (!pid) return false
  await stopPid(pid, 60000)
  fs.rmSync(f.pidFile, { force: true })
  return true
}

/** @param {{ paths: import('./paths').StackPaths, port: number }} opts */
async function status ({ paths, port }) {
  const f = files(paths, port)
  const pid = livePid(f.pidFile, ownServer(f))
  let answering = false
  if (pid) { try { adminSql(f, 'SELECT 1'); answering = true } catch {} }
  return { pid, answering, logFile: f.logFile }
}

/** The local server's Unix socket. @param {import('./paths').StackPaths} paths @param {number} port */
const socketPath = (paths, port) => files(paths, port).socket

module.exports = { up, down, status, socketPath, sizeBytes, dataDirPlan, sql, quote }
