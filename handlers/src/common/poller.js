'use strict'

// A background loop for the handlers that poll the database (timeout sweeps,
// callback recovery, callback retention): one tick at a time, the next one
// after the delay the tick asks for, a failed tick logged and tried again
// after `errorDelayMs`. stop() lets the tick in progress finish.

/**
 * @param {{ tick: () => Promise<number>, logger: import('pino').Logger, what: string, errorDelayMs: number }} opts
 *   tick: does one round and resolves to the milliseconds to wait before the next (0: at once)
 */
function createPoller ({ tick, logger, what, errorDelayMs }) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  /** @type {Promise<void>} */
  let current = Promise.resolve()
  let running = false

  async function run () {
    let delay = errorDelayMs
    try {
      delay = await tick()
    } catch (err) {
      logger.warn({ err }, `${what} failed; will try again`)
    }
    if (running) timer = setTimeout(() => { current = run() }, delay)
  }

  return {
    /** Whether it runs (false once stop() was called): a tick that loops may ask. */
    get running () { return running },
    start () {
      running = true
      current = run()
    },
    async stop () {
      running = false
      clearTimeout(timer)
      await current
    }
  }
}

module.exports = { createPoller }
