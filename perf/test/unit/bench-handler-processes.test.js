'use strict'

// Which handlers share a process in the bench (--handler-processes), and how
// several handler processes are accounted as one component.

const { spawn } = require('node:child_process')
const { parseHandlerProcesses } = require('../../src/bench/profiles')
const { HANDLER_PROCESSES } = require('../../src/bench/sut')
const { cpuSnapshot } = require('../../src/bench/accounting')
const { names } = require('../../../handlers/src/registry')

describe('--handler-processes', () => {
  test('processes are separated by |, handlers within one by commas', () => {
    expect(parseHandlerProcesses('prepare,position , fulfil,timeout|notification')).toEqual(['prepare,position,fulfil,timeout', 'notification'])
    expect(parseHandlerProcesses(names().join('|'))).toEqual(names())
  })

  test('the default runs every handler the switch has, each once', () => {
    expect(parseHandlerProcesses(HANDLER_PROCESSES.join('|'))).toEqual(HANDLER_PROCESSES)
  })

  test.each([
    ['prepare,position,fulfil|notification', /missing: timeout/],
    ['prepare,position,fulfil,timeout,notification|matching', /unknown: matching/],
    ['prepare,position,fulfil,timeout|notification,prepare', /twice: prepare/],
    ['prepare,position,fulfil,timeout||notification', /in exactly one process/]
  ])('%s is refused', (value, why) => {
    expect(() => parseHandlerProcesses(value)).toThrow(why)
  })
})

describe('CPU of several processes counted as one', () => {
  /** @type {import('node:child_process').ChildProcess[]} */
  const children = []
  afterAll(() => { for (const c of children) c.kill('SIGKILL') })

  /** A process that does (almost) nothing once it is up. */
  async function idleProcess () {
    const child = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 60000)'], { stdio: ['ignore', 'pipe', 'ignore'] })
    children.push(child)
    await new Promise((resolve) => child.stdout.once('data', resolve))
    return /** @type {number} */ (child.pid)
  }

  test('a name may stand for several processes: their CPU adds up', async () => {
    const a = await idleProcess()
    const b = await idleProcess()
    // CPU time only grows, and a slow machine may still be starting them up:
    // the sum read at once lies between the two read before and after.
    const sum = () => { const { byProcess } = cpuSnapshot({ a, b }); return /** @type {number} */ (byProcess.a) + /** @type {number} */ (byProcess.b) }
    const before = sum()
    const both = cpuSnapshot({ both: [a, b] }).byProcess.both
    const after = sum()
    expect(both).toBeGreaterThanOrEqual(before)
    expect(both).toBeLessThanOrEqual(after)
    expect(both).toBeGreaterThan(0)
  })

  test('when one of them is gone the component is unknown, not undercounted', async () => {
    const a = await idleProcess()
    const gone = spawn(process.execPath, ['-e', ''])
    await new Promise((resolve) => gone.once('exit', resolve))
    expect(cpuSnapshot({ both: [a, /** @type {number} */ (gone.pid)] }).byProcess.both).toBeNull()
  })
})
