'use strict'

// A background loop for the handlers that poll the database (timeout sweeps,
// callback recovery, callback retention): one tick at a time, the next one
// after the delay the tick asks for, a failed tick tried again after
// `errorDelayMs`. stop() lets the tick in progress finish.
//
// While the database is away every tick fails: the first failure is logged,
// then at most one a minute (the shared repeat gate) with how many there have
// been in a row, and the first tick that works again says so.

const { createRepeatGate } = require('@switchyard/shared/log-repeats')

/**
 * @param {{ tick: () => Promise<number>, logger: import('pino').Logger, what: string, errorDelayMs: number,
 *   logEveryMs?: number, now?: () => number }} opts
 *   tick: does one round and resolves to the milliseconds to wait before the next (0: at once);
 *   logEveryMs: how often failures in a row are logged after the first
 */
function createPoller ({ tick, logger, what, errorDelayMs, logEveryMs = 60000, now = Date.now }) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  /** @type {Promise<void>} */
  let current = Promise.resolve()
  let running = false
  let failures = 0
  const pass = createRepeatGate({ windowMs: logEveryMs, now })

  async function run () {
    let delay = errorDelayMs
    let failed = false
    try {
      delay = await tick()
    } catch (err) {
      failed = true
      failures++
      // Asked every time, so its window runs from the last line logged; a new run of failures logs at once.
      if (pass(what) || failures === 1) {
        logger.warn({ err, failures }, failures === 1 ? `${what} failed; will try again` : `${what} has failed ${failures} times in a row; will try again`)
      }
    }
    if (!failed && failures) {
      logger.info({ failures }, `${what} works again after ${failures} failed ${failures === 1 ? 'try' : 'tries'}`)
      failures = 0
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
