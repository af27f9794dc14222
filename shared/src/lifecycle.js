'use strict'

// Graceful shutdown: on SIGTERM/SIGINT, or when the process finds it must not
// run (fail()), close every registered resource in the reverse order of
// registration (stop consuming before closing the producer, close the
// producer before the database), then exit. A timeout guarantees the process
// ends even if something hangs.

/**
 * @param {{ logger: import('pino').Logger, timeoutMs: number, exit?: (code: number) => void }} opts
 */
function createLifecycle ({ logger, timeoutMs, exit = (code) => process.exit(code) }) {
  /** @type {{ name: string, close: () => Promise<void> | void }[]} */
  const resources = []
  /** @type {Promise<void> | undefined} */
  let closing

  /** Registers a resource; returns it for chaining. @template T @param {string} name @param {() => Promise<void> | void} close @param {T} [resource] */
  function add (name, close, resource) {
    resources.push({ name, close })
    return resource
  }

  /** Closes everything once, newest first. Resolves when done. @param {string} reason */
  function shutdown (reason) {
    if (closing) return closing
    logger.info({ reason }, 'shutting down')
    closing = (async () => {
      for (const { name, close } of [...resources].reverse()) {
        try {
          await close()
          logger.debug({ resource: name }, 'closed')
        } catch (err) {
          logger.error({ err, resource: name }, 'error while closing')
        }
      }
    })()
    return closing
  }

  /**
   * Closes everything, then exits with `code`; with 1 anyway once timeoutMs
   * has passed, should something hang.
   * @param {string} reason @param {number} code
   */
  function stop (reason, code) {
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown timed out; exiting')
      exit(1)
    }, timeoutMs)
    timer.unref()
    return shutdown(reason).then(() => exit(code))
  }

  /**
   * Ends the process because it must not go on (no signal asked for it): the
   * same graceful stop as on SIGTERM, then exit code 1 so that a supervisor
   * sees a failure.
   * @param {string} reason
   */
  function fail (reason) {
    return stop(reason, 1)
  }

  function installSignalHandlers () {
    let signalled = false
    for (const signal of ['SIGTERM', 'SIGINT']) {
      // Kept for every signal: a second one (a double Ctrl-C, a forwarded
      // SIGTERM) must not fall back to Node's default and kill the process
      // in the middle of its graceful stop; the timeout still bounds it.
      process.on(signal, () => {
        if (signalled) {
          logger.warn({ signal }, 'already shutting down')
          return
        }
        signalled = true
        stop(signal, 0)
      })
    }
  }

  return { add, shutdown, fail, installSignalHandlers }
}

module.exports = { createLifecycle }
