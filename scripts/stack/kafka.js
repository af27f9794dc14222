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

/** @param {{ dir: string, port: number }} k */
function serverProperties ({ dir, port }) {
  const controller = port + 1
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${controller}`,
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
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
  const running = livePid(f.pidFile, ownServer(f))
  if (running) {
    await waitFor(() => brokerAnswers(port), { what: 'Kafka', timeoutMs: 60000, pid: running, logFiles: [f.logFile, f.outFile] })
    return { pid: running, started: false }
  }
  await assertPortFree(port, 'Kafka', 'KAFKA_BROKERS')
  await assertPortFree(port + 1, 'the Kafka controller', 'KAFKA_BROKERS')
  const libs = ensureJars(paths, version, say)
  fs.mkdirSync(path.join(f.dir, 'data'), { recursive: true })
  fs.writeFileSync(f.props, serverProperties(f))
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
  return { pid, started: true }
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

module.exports = { up, down, status, newClusterId, log4j, mvnArgs }
