'use strict'

// A real single-node Apache Kafka broker (KRaft) for local use and tests,
// built from the release jars on Maven Central: no Docker, no tarball from a
// download site. Jars are fetched once into STACK_DIR/cache; the broker keeps
// its data, pid and log under STACK_DIR/kafka.

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { livePid, spawnDaemon, stopPid, waitFor, which, run, assertPortFree } = require('./proc')
const apt = require('./apt')
const { ensureTls, tlsFiles } = require('./tls')
const { createKafka } = require('../../shared/src/kafka/client')

const MAIN_CLASS = 'kafka.Kafka'

/** How the pid check knows our broker: the main class and our server.properties. @param {{ props: string }} f */
const ownServer = (f) => ({ names: [MAIN_CLASS], arg: f.props })

/**
 * A fresh KRaft cluster id: 16 random bytes in base64url, as Kafka's own
 * Uuid.randomUuid() makes them. Like Kafka, it draws again when the id starts
 * with '-': the storage tool's argument parser would read such an id as an
 * option and refuse to format (one id in 64 does).
 * @param {(n: number) => Buffer} [random]
 */
function newClusterId (random = crypto.randomBytes) {
  for (;;) {
    const id = random(16).toString('base64url')
    if (!id.startsWith('-')) return id
  }
}

/** @param {import('./paths').StackPaths} paths @param {string} version */
function jarDir (paths, version) {
  return path.join(paths.cache, `kafka-${version}`, 'libs')
}

/** Maven fetches the broker and its runtime dependencies (plus a log4j binding). */
function pom (version) {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>switchyard.local</groupId><artifactId>kafka-runtime</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${version}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
`
}

// Pinned: a bare `dependency:` prefix runs whichever version the installed
// Maven's defaults name (2.8, from 2013, with Debian's Maven 3.8).
const DEPENDENCY_PLUGIN = '3.6.1'

/**
 * The Maven command line that copies the jars into `libs`. `-C` (strict
 * checksums) fails on a download whose checksum does not match instead of
 * warning and using it.
 * @param {string} libs
 */
const mvnArgs = (libs) => ['-q', '-B', '-C', `org.apache.maven.plugins:maven-dependency-plugin:${DEPENDENCY_PLUGIN}:copy-dependencies`,
  `-DoutputDirectory=${libs}`, '-DincludeScope=runtime']

/** @param {import('./paths').StackPaths} paths @param {string} version @param {(m: string) => void} say */
function ensureJars (paths, version, say) {
  const libs = jarDir(paths, version)
  const done = path.join(libs, '.complete')
  if (fs.existsSync(done)) return libs
  const missing = (/** @type {string} */ tool) => new Error(`${tool} is required to run the local Kafka broker (Java 17+ and Maven). Install a JDK and Maven, or point KAFKA_BROKERS at an existing broker.`)
  if (!which('java')) throw missing('java')
  if (!which('mvn')) {
    if (!apt.canInstall()) throw missing('mvn')
    say('installing Maven from Debian packages (once)…')
    apt.install(['maven'], say)
    if (!which('mvn')) throw new Error('the maven package did not provide mvn')
  }
  say(`fetching Apache Kafka ${version} from Maven Central (once)…`)
  const dir = path.dirname(libs)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'pom.xml'), pom(version))
  run('mvn', mvnArgs(libs), { cwd: dir })
  fs.writeFileSync(done, new Date().toISOString())
  return libs
}

/**
 * The local broker's listeners beside its plaintext one (KAFKA_BROKERS): the
 * controller's, then two secured ones for trying and testing KAFKA_TLS*,
 * KAFKA_SASL_*: SASL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) over TLS, and TLS
 * that requires a client certificate. The stack's certificates (tls.js);
 * the SASL user is the local stack's own, like DB_USER's default.
 * @param {number} port the plaintext listener's
 */
const listenerPorts = (port) => ({ controller: port + 1, saslSsl: port + 2, mutualTls: port + 3 })
const SASL_USER = { username: 'switchyard', password: 'switchyard' }
const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512']

/**
 * How to reach the local broker's secured listeners (see listenerPorts).
 * @param {import('./paths').StackPaths} paths @param {number} port the plaintext listener's
 */
function securedListeners (paths, port) {
  const ports = listenerPorts(port)
  const tls = tlsFiles(paths)
  return {
    saslSsl: `127.0.0.1:${ports.saslSsl}`,
    mutualTls: `127.0.0.1:${ports.mutualTls}`,
    ...SASL_USER,
    caFile: tls.ca,
    clientCertFile: tls.clientCert,
    clientKeyFile: tls.clientKey
  }
}

/** @param {{ dir: string, port: number, tls: ReturnType<typeof tlsFiles> }} k */
function serverProperties ({ dir, port, tls }) {
  const { controller, saslSsl, mutualTls } = listenerPorts(port)
  const jaas = (/** @type {string} */ module, /** @type {string} */ options) => `org.apache.kafka.common.security.${module} required${options};`
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controller}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller},SASL_SSL://127.0.0.1:${saslSsl},MTLS://127.0.0.1:${mutualTls}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port},SASL_SSL://127.0.0.1:${saslSsl},MTLS://127.0.0.1:${mutualTls}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,MTLS:SSL',
    'ssl.keystore.type=PEM',
    `ssl.keystore.location=${tls.serverKeystore}`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${tls.ca}`,
    `sasl.enabled.mechanisms=PLAIN,${SCRAM_MECHANISMS.join(',')}`,
    `listener.name.sasl_ssl.plain.sasl.jaas.config=${jaas('plain.PlainLoginModule', ` user_${SASL_USER.username}="${SASL_USER.password}"`)}`,
    ...SCRAM_MECHANISMS.map((m) => `listener.name.sasl_ssl.${m.toLowerCase()}.sasl.jaas.config=${jaas('scram.ScramLoginModule', '')}`),
    'listener.name.mtls.ssl.client.auth=required',
    `log.dirs=${path.join(dir, 'data')}`,
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=10',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'min.insync.replicas=1',
    // Consumers join at once instead of waiting 3 s for more members.
    'group.initial.rebalance.delay.ms=0',
    // Topics are created explicitly with their configured partition counts.
    'auto.create.topics.enable=false',
    'log.retention.hours=24',
    ''
  ].join('\n')
}

// Kafka 3.9 logs through log4j 1.x (reload4j). At INFO a busy broker writes
// hundreds of MB, so the log rolls at 50 MB and keeps two old files
// (kafka.log.1, kafka.log.2): at most 150 MB on disk.
/** @param {string} logFile */
const log4j = (logFile) => [
  'log4j.rootLogger=INFO, file',
  'log4j.appender.file=org.apache.log4j.RollingFileAppender',
  `log4j.appender.file.File=${logFile}`,
  'log4j.appender.file.MaxFileSize=50MB',
  'log4j.appender.file.MaxBackupIndex=2',
  'log4j.appender.file.layout=org.apache.log4j.PatternLayout',
  'log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n',
  'log4j.logger.kafka=INFO',
  'log4j.logger.org.apache.kafka=INFO',
  ''
].join('\n')

/** @param {import('./paths').StackPaths} paths @param {number} port */
function files (paths, port) {
  const dir = paths.kafka
  return {
    dir,
    port,
    pidFile: path.join(dir, 'kafka.pid'),
    logFile: path.join(dir, 'kafka.log'),
    outFile: path.join(dir, 'kafka.out'),
    props: path.join(dir, 'server.properties'),
    log4j: path.join(dir, 'log4j.properties'),
    meta: path.join(dir, 'data', 'meta.properties')
  }
}

/** @param {number} port */
async function brokerAnswers (port) {
  const admin = createKafka({ brokers: [`127.0.0.1:${port}`], clientId: 'switchyard-stack' }).admin({ retry: { retries: 0 } })
  try {
    await admin.connect()
    const { brokers } = await admin.describeCluster()
    return brokers.length > 0
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/**
 * @param {{ paths: import('./paths').StackPaths, port: number, version: string, heap: string, say: (m: string) => void }} opts
 */
async function up ({ paths, port, version, heap, say }) {
  const f = files(paths, port)
  const props = serverProperties({ ...f, tls: ensureTls(paths, say) })
  const running = livePid(f.pidFile, ownServer(f))
  if (running) {
    // Started by an earlier version of this script with other settings
    // (before the secured listeners): the broker it would start now.
    if (readText(f.props) === props) {
      await waitFor(() => brokerAnswers(port), { what: 'Kafka', timeoutMs: 60000, pid: running, logFiles: [f.logFile, f.outFile] })
      await ensureScramUser(paths, f, version, port)
      return { pid: running, started: false }
    }
    say('restarting the local Kafka broker: its settings have changed')
    await stopPid(running, 30000)
  }
  const ports = listenerPorts(port)
  await assertPortFree(port, 'Kafka', 'KAFKA_BROKERS')
  await assertPortFree(ports.controller, 'the Kafka controller', 'KAFKA_BROKERS')
  await assertPortFree(ports.saslSsl, 'the Kafka SASL_SSL listener', 'KAFKA_BROKERS (its port + 2)')
  await assertPortFree(ports.mutualTls, 'the Kafka mutual-TLS listener', 'KAFKA_BROKERS (its port + 3)')
  const libs = ensureJars(paths, version, say)
  fs.mkdirSync(path.join(f.dir, 'data'), { recursive: true })
  fs.writeFileSync(f.props, props)
  fs.writeFileSync(f.log4j, log4j(f.logFile))
  const cp = `${libs}/*`
  const jvm = [`-Xms${heap}`, `-Xmx${heap}`, '-XX:+UseG1GC', '-Djava.awt.headless=true', `-Dlog4j.configuration=file:${f.log4j}`]
  if (!fs.existsSync(f.meta)) {
    // KRaft storage is formatted once with a fresh cluster id.
    run('java', [...jvm, '-cp', cp, 'kafka.tools.StorageTool', 'format', '-t', newClusterId(), '-c', f.props])
  }
  say(`starting Kafka on 127.0.0.1:${port} (log: ${path.relative(paths.root, f.logFile)})`)
  const pid = spawnDaemon('java', [...jvm, '-cp', cp, MAIN_CLASS, f.props], { pidFile: f.pidFile, logFile: f.outFile })
  await waitFor(() => brokerAnswers(port), { what: 'Kafka', timeoutMs: 90000, pid, logFiles: [f.logFile, f.outFile] })
  await ensureScramUser(paths, f, version, port)
  return { pid, started: true }
}

/** @param {string} file */
function readText (file) {
  try { return fs.readFileSync(file, 'utf8') } catch { return null }
}

/**
 * SCRAM credentials live in the cluster's metadata, not in its settings: they
 * are added once per data directory, with Kafka's own tool over the
 * plaintext listener, and a file in the data directory remembers it.
 * @param {import('./paths').StackPaths} paths @param {ReturnType<typeof files>} f @param {string} version @param {number} port
 */
async function ensureScramUser (paths, f, version, port) {
  const done = path.join(f.dir, 'data', '.scram-user')
  if (fs.existsSync(done)) return
  // One mechanism per request: the broker refuses two changes to one user in one.
  for (const mechanism of SCRAM_MECHANISMS) {
    run('java', ['-Xmx128m', '-cp', `${jarDir(paths, version)}/*`, 'kafka.admin.ConfigCommand', '--bootstrap-server', `127.0.0.1:${port}`,
      '--alter', '--add-config', `${mechanism}=[password=${SASL_USER.password}]`, '--entity-type', 'users', '--entity-name', SASL_USER.username])
  }
  fs.writeFileSync(done, `${SASL_USER.username}\n`)
}

/** @param {{ paths: import('./paths').StackPaths, port: number }} opts */
async function down ({ paths, port }) {
  const f = files(paths, port)
  const pid = livePid(f.pidFile, ownServer(f))
  if (!pid) return false
  await stopPid(pid, 30000)
  fs.rmSync(f.pidFile, { force: true })
  return true
}

/** @param {{ paths: import('./paths').StackPaths, port: number }} opts */
async function status ({ paths, port }) {
  const f = files(paths, port)
  const pid = livePid(f.pidFile, ownServer(f))
  const answering = pid ? await brokerAnswers(port).catch(() => false) : false
  return { pid, answering, logFile: f.logFile }
}

module.exports = { up, down, status, newClusterId, log4j, mvnArgs, securedListeners, serverProperties }
