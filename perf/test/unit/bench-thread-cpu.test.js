'use strict'

// Per-thread CPU in the bench's accounting: a process's total does not say
// whether its event loop (the main thread) or another thread was busy.

const { spawn } = require('node:child_process')
const { cpuSnapshot, cpuDelta } = require('../../src/bench/accounting')
const { eventLoopsPhrase } = require('../../src/bench/run')

/** @type {import('node:child_process').ChildProcess[]} */
const children = []
afterAll(() => { for (const c of children) c.kill('SIGKILL') })

/**
 * A process that, when told to on stdin, spins for 300 ms on its main thread
 * or on a worker thread (which then stays, idle), says "done", and is idle
 * otherwise.
 * @param {'main' | 'worker'} where
 */
async function spinner (where) {
  const code = `
    const { Worker } = require('node:worker_threads')
    const spin = 'const end = Date.now() + 300; while (Date.now() < end) {}'
    process.stdin.once('data', () => {
      if (${JSON.stringify(where)} === 'main') { eval(spin); process.stdout.write('done') }
      // The worker stays: a thread that has ended is no longer in /proc.
      else new Worker(spin + "; require('node:worker_threads').parentPort.postMessage('spun'); setInterval(() => {}, 60000)", { eval: true })
        .once('message', () => process.stdout.write('done')).unref()
    })
    process.stdout.write('up'); setInterval(() => {}, 60000)`
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'ignore'] })
  children.push(child)
  await new Promise((resolve) => child.stdout.once('data', resolve))
  return {
    pid: /** @type {number} */ (child.pid),
    spin: async () => { const done = new Promise((resolve) => child.stdout.once('data', resolve)); child.stdin.write('go'); await done }
  }
}

/** @param {{ pid: number, spin: () => Promise<void> }} p */
async function measure (p) {
  const a = cpuSnapshot({ p: p.pid })
  await p.spin()
  return cpuDelta(a, cpuSnapshot({ p: p.pid }), 0).processes.p
}

test('a busy worker thread shows as the busiest thread, not as the main thread', async () => {
  const cpu = await measure(await spinner('worker'))
  expect(cpu.busiestThreadPctCore).toBeGreaterThan(/** @type {number} */ (cpu.mainThreadPctCore))
  // Threads and process are read a moment apart: a clock tick (10 ms) of slack.
  expect(cpu.busiestThreadPctCore).toBeLessThanOrEqual(cpu.pctCore + 5)
})

test('a busy main thread (a Node.js event loop) is the busiest thread', async () => {
  const cpu = await measure(await spinner('main'))
  expect(cpu.mainThreadPctCore).toBeGreaterThan(0)
  expect(cpu.mainThreadPctCore).toBe(cpu.busiestThreadPctCore)
})

test('the step line names the Node.js processes\' event loops it has', () => {
  expect(eventLoopsPhrase({ processes: { handlers: { mainThreadPctCore: 44.1 }, mariadb: { mainThreadPctCore: 0 }, generator: { mainThreadPctCore: 20 } } }))
    .toBe(' (event loops: handlers 44%, generator 20%)')
  expect(eventLoopsPhrase({ processes: { handlers: {} } })).toBe('')
})
