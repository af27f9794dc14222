'use strict'

// What it costs to wake another process: a one-byte round trip over loopback
// TCP to a child process that echoes it, the shape of every hop a transfer
// makes (HTTP, Kafka, the database). The speed probe times one thread's own
// work, and misses this: on one 2-core Firecracker VM whose speed probe was
// 1.5× the reference machine's, the switch needed about 3× the CPU per
// transfer, and a round trip between two processes took 100 µs where one
// between two sockets of the same process took 21 µs (docs/performance.md,
// twenty-second round). A transfer makes dozens of such hops, so on a machine
// where waking a process is dear, the switch is slower than its speed probe
// says.
//
// It times the round trip twice: back to back, as under load, where the other
// side is still awake; and from idle, each one 5 ms after the last answer, as
// a lightly loaded switch makes them. On a VM whose idle vCPUs halt, the second
// wakes a halted vCPU each time: on one such VM 300 µs against 85 µs, and the
// echo's CPU per round trip 160 µs against 50 µs (docs/performance.md,
// thirty-sixth round). That is what single transfers and light loads pay for
// every hop, and why they vary between machines whose other probes agree.

const { fork } = require('node:child_process')
const net = require('node:net')
const { performance } = require('node:perf_hooks')
const { round } = require('./schedule')
const { exactPercentile } = require('./histogram')

/** The child: echo every byte back at once. */
function serveEcho () {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true)
    socket.on('data', (d) => socket.write(d))
  })
  server.listen(0, '127.0.0.1', () => process.send && process.send(/** @type {net.AddressInfo} */ (server.address()).port))
  process.on('disconnect', () => process.exit(0))
}

/**
 * Round trips one at a time over `socket`, each `gapMs` after the last answer
 * (0: at once), after `warmup` unmeasured ones.
 * @param {net.Socket} socket @param {{ count: number, warmup: number, gapMs: number }} opts
 * @returns {Promise<{ p50: number, p99: number }>} microseconds
 */
function roundTrips (socket, { count, warmup, gapMs }) {
  /** @type {number[]} */
  const times = []
  return new Promise((resolve, reject) => {
    let n = 0
    let t0 = 0
    const send = () => { t0 = performance.now(); socket.write('x') }
    // The echo gone (killed, crashed) ends the probe with an error, not a wait
    // for ever: a reset or a close, whichever the way it went produces.
    const onError = (/** @type {Error} */ err) => reject(new Error(`wake probe: the connection to the echo process failed (${err.message})`))
    const onClose = () => reject(new Error('wake probe: the echo process closed the connection'))
    const onData = () => {
      if (n++ >= warmup) times.push((performance.now() - t0) * 1000)
      if (times.length < count) {
        if (gapMs > 0) setTimeout(send, gapMs)
        else send()
        return
      }
      socket.off('data', onData)
      socket.off('error', onError)
      socket.off('close', onClose)
      resolve({ p50: round(/** @type {number} */ (exactPercentile(times, 50)), 1), p99: round(/** @type {number} */ (exactPercentile(times, 99)), 1) })
    }
    socket.on('error', onError)
    socket.on('close', onClose)
    socket.on('data', onData)
    send()
  })
}

/**
 * `count` round trips back to back and `idleCount` from idle (each `idleGapMs`
 * after the last answer), after unmeasured warm-up ones.
 * @param {{ count?: number, warmup?: number, idleCount?: number, idleGapMs?: number }} [opts]
 * @returns {Promise<{ p50: number, p99: number, idle: { p50: number, p99: number, gapMs: number } }>} microseconds
 */
async function wakeProbe ({ count = 2000, warmup = 200, idleCount = 200, idleGapMs = 5 } = {}) {
  const child = fork(__filename, ['--echo'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  try {
    const port = await new Promise((resolve, reject) => {
      child.once('message', resolve)
      child.once('error', reject)
      child.once('exit', (code) => reject(new Error(`wake probe: the echo process exited (${code})`)))
    })
    const socket = net.connect(/** @type {number} */ (port), '127.0.0.1')
    socket.setNoDelay(true)
    await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
    const busy = await roundTrips(socket, { count, warmup, gapMs: 0 })
    const idle = await roundTrips(socket, { count: idleCount, warmup: Math.min(20, warmup), gapMs: idleGapMs })
    socket.destroy()
    return { ...busy, idle: { ...idle, gapMs: idleGapMs } }
  } finally {
    child.kill()
  }
}

if (require.main === module && process.argv[2] === '--echo') serveEcho()

module.exports = { wakeProbe }
