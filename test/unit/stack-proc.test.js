'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { livePid, seeLogs } = require('../../scripts/stack/proc')

describe('the local stack pid check', () => {
  let dir, pidFile
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-proc-'))
    pidFile = path.join(dir, 'server.pid')
    fs.writeFileSync(pidFile, '4242\n')
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  const mariadb = { names: ['mariadbd', 'mysqld'], arg: '--datadir=/checkout/.stack/mariadb/data' }
  /** @param {string[]} args */
  const running = (args) => (pid) => pid === 4242 ? args : []

  test("takes the pid of this checkout's server", () => {
    const args = ['/usr/sbin/mariadbd', '--no-defaults', '--datadir=/checkout/.stack/mariadb/data', '--port=13306']
    expect(livePid(pidFile, mariadb, running(args))).toBe(4242)
    expect(fs.existsSync(pidFile)).toBe(true)
  })

  test('a reused pid running the same program for another data directory is not ours', () => {
    for (const args of [
      ['/usr/sbin/mariadbd', '--basedir=/usr', '--datadir=/var/lib/mysql'],
      ['/usr/sbin/mariadbd'],
      // Another checkout whose path only starts like ours.
      ['/usr/sbin/mariadbd', '--datadir=/checkout/.stack/mariadb/data2']
    ]) {
      fs.writeFileSync(pidFile, '4242\n')
      expect(livePid(pidFile, mariadb, running(args))).toBeUndefined()
      expect(fs.existsSync(pidFile)).toBe(false)
    }
  })

  test('another program that happens to name our files is not ours', () => {
    // The mariadb client talking to our socket names neither the server nor the data directory.
    expect(livePid(pidFile, mariadb, running(['mariadb', '--socket=/checkout/.stack/mariadb/mysqld.sock']))).toBeUndefined()
    fs.writeFileSync(pidFile, '4242\n')
    expect(livePid(pidFile, mariadb, running(['cat', '--datadir=/checkout/.stack/mariadb/data']))).toBeUndefined()
  })

  test('a Kafka broker is known by its main class and our server.properties', () => {
    const kafka = { names: ['kafka.Kafka'], arg: '/checkout/.stack/kafka/server.properties' }
    expect(livePid(pidFile, kafka, running(['java', '-Xmx512m', '-cp', 'libs/*', 'kafka.Kafka', '/checkout/.stack/kafka/server.properties']))).toBe(4242)
    expect(livePid(pidFile, kafka, running(['java', '-cp', 'libs/*', 'kafka.Kafka', '/other/.stack/kafka/server.properties']))).toBeUndefined()
  })

  test('a dead pid or a missing or garbled pid file is not a server', () => {
    expect(livePid(pidFile, mariadb, () => [])).toBeUndefined()
    expect(fs.existsSync(pidFile)).toBe(false)
    expect(livePid(pidFile, mariadb, running(['/usr/sbin/mariadbd', mariadb.arg]))).toBeUndefined()
    fs.writeFileSync(pidFile, 'garbage\n')
    expect(livePid(pidFile, mariadb, () => ['/usr/sbin/mariadbd', mariadb.arg])).toBeUndefined()
  })
})

describe('start-up failure messages', () => {
  let dir
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-logs-')) })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  test("show the end of every log file that has something, such as the JVM's stdout next to Kafka's log", () => {
    const log = path.join(dir, 'kafka.log')
    const out = path.join(dir, 'kafka.out')
    fs.writeFileSync(log, Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n') + '\n')
    fs.writeFileSync(out, 'Error: Could not find or load main class kafka.Kafka\n')
    const message = seeLogs([log, out])
    expect(message.startsWith(`; see ${log} and ${out}`)).toBe(true)
    expect(message).toContain(`--- end of ${log} ---\nline 25\n`)
    expect(message).not.toContain('line 24\n')
    expect(message).toContain(`--- end of ${out} ---\nError: Could not find or load main class kafka.Kafka`)
  })

  test('leave out files that are missing or empty', () => {
    const log = path.join(dir, 'kafka.log')
    const out = path.join(dir, 'kafka.out')
    fs.writeFileSync(out, '')
    expect(seeLogs([log, out])).toBe(`; see ${log} and ${out}`)
    expect(seeLogs([])).toBe('')
  })
})
