'use strict'

// The bench's CPU priority experiment (--priority, or priority= in a
// variant): what it accepts, and that it sets every thread of real processes.

const fs = require('node:fs')
const { spawn } = require('node:child_process')
const { parsePriority, describePriority, setNice, applyPriority, partsNamed, defaultPriority } = require('../../src/bench/priority')
const { parseVariant } = require('../../src/bench/profiles')
const { priorityPhrase } = require('../../src/bench/report-md')

/** Every thread's nice value, from /proc/<pid>/task/<tid>/stat (field 19). @param {number} pid */
function threadNices (pid) {
  return fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    // The command name is in parentheses and may hold spaces: count fields after it.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
  })
}

describe('parsePriority', () => {
  test('parts and nice values, separated by commas or by + (inside a variant)', () => {
    expect(parsePriority('handlers:-10,db:-5', '--priority')).toEqual({ handlers: -10, db: -5 })
    expect(parsePriority('handlers:-20+kafka:3+api:19', '--priority')).toEqual({ handlers: -20, kafka: 3, api: 19 })
    expect(describePriority({ handlers: -10, db: -5 })).toBe('handlers at nice -10, db at nice -5')
  })

  test('none: every process at the nice it starts with', () => {
    expect(parsePriority('none', '--priority')).toEqual({})
    expect(describePriority({})).toBe('every process at nice 0')
  })

  test('the default puts the handler processes and MariaDB first, where the bench may (root)', () => {
    expect(defaultPriority(true)).toEqual({ priority: { handlers: -20, db: -20 }, from: 'default' })
    expect(defaultPriority(false)).toEqual({ priority: {}, from: 'not root' })
  })

  test.each([
    ['handlers', /handlers is not PART:NICE/],
    ['handlers:-21', /from -20 to 19/],
    ['handlers:20', /from -20 to 19/],
    ['generator:-5', /PART one of handlers, api, db, kafka/],
    ['db:1.5', /db:1.5 is not PART:NICE/],
    ['db:-1,db:-2', /db is given twice/],
    ['', /at least one/]
  ])('%j is refused with what it takes', (value, why) => {
    expect(() => parsePriority(value, '--priority')).toThrow(why)
  })

  test('a variant may set a priority alone or with other settings, and says so in its description', () => {
    const { config } = parseVariant('lane=batched:priority=handlers:-10+db:-10')
    expect(config.priority).toEqual({ handlers: -10, db: -10 })
    expect(config.description).toBe('batched with handlers at nice -10, db at nice -10')
    const both = parseVariant('lane2=batched:KAFKA_LINGER_MS=0,priority=handlers:-5')
    expect(both.config.priority).toEqual({ handlers: -5 })
    expect(both.config.changes).toEqual({ KAFKA_LINGER_MS: '0' })
    expect(() => parseVariant('x=batched:priority=handlers:-1,priority=db:-1')).toThrow(/priority= given twice/)
  })

  test('the stack servers named anywhere in a campaign are the ones every run sets', () => {
    expect(partsNamed([undefined, { handlers: -5 }, { db: -5, kafka: 0 }])).toEqual(['handlers', 'db', 'kafka'])
    expect(partsNamed([undefined, undefined])).toEqual([])
  })
})

test('the report says what priority the campaign ran with, and why', () => {
  expect(priorityPhrase({ handlers: -20, db: -20 }, 'default')).toMatch(/^CPU priority: handlers at nice -20, db at nice -20, the bench's default as root/)
  expect(priorityPhrase({}, 'not root')).toMatch(/every process at nice 0; the bench's default, the handler processes and MariaDB at nice -20, needs root/)
  expect(priorityPhrase({}, 'option')).toBe('CPU priority (`--priority`): every process at nice 0.')
  expect(priorityPhrase({ api: 5 }, 'option')).toBe('CPU priority (`--priority`): api at nice 5.')
})

describe('setting the nice value of real processes', () => {
  /** @type {import('node:child_process').ChildProcess[]} */
  const children = []
  afterAll(() => { for (const c of children) c.kill('SIGKILL') })

  /** A Node process with worker threads of its own (V8's and libuv's), up and idle. */
  async function threadedProcess () {
    const child = spawn(process.execPath, ['-e', 'require("node:fs").readFile(__filename, () => {}); process.stdout.write("up"); setInterval(() => {}, 60000)'], { stdio: ['ignore', 'pipe', 'ignore'] })
    children.push(child)
    await new Promise((resolve) => child.stdout.once('data', resolve))
    return /** @type {number} */ (child.pid)
  }

  // A higher nice (less priority) needs no privilege, so this runs anywhere.
  test('every thread of the process gets it, not only the main one', async () => {
    const pid = await threadedProcess()
    expect(threadNices(pid).length).toBeGreaterThan(1)
    expect(threadNices(pid).every((n) => n === 0)).toBe(true)
    const set = setNice(pid, 7)
    expect(set).toBe(threadNices(pid).length)
    expect(new Set(threadNices(pid))).toEqual(new Set([7]))
  })

  test('a run sets the parts it names, and the stack servers another run names back to 0', async () => {
    const [api, handler, db] = [await threadedProcess(), await threadedProcess(), await threadedProcess()]
    expect(applyPriority({ handlers: 3, db: 4 }, { api, handlers: [handler], mariadb: db, kafka: null }, ['db'])).toEqual({ handlers: 3, db: 4 })
    expect(new Set(threadNices(handler))).toEqual(new Set([3]))
    expect(new Set(threadNices(db))).toEqual(new Set([4]))
    expect(new Set(threadNices(api))).toEqual(new Set([0])) // not named: left as started
    // A server not run here (an external database) is not set, nor said to be.
    expect(applyPriority({ handlers: 3, db: 4 }, { api, handlers: [handler], mariadb: null, kafka: null }, ['db'])).toEqual({ handlers: 3 })
    const next = () => applyPriority(undefined, { api, handlers: [handler], mariadb: db, kafka: null }, ['db'])
    if (process.getuid && process.getuid() === 0) {
      expect(next()).toEqual({ db: 0 })
      expect(new Set(threadNices(db))).toEqual(new Set([0]))
    } else {
      // Lowering a nice value needs privilege: the run stops with the reason.
      expect(next).toThrow(/cannot set nice 0 on process \d+: a nice value lower than a process has needs root or CAP_SYS_NICE/)
    }
  })
})
