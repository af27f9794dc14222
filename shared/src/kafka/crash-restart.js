'use strict'

// Restarting a consumer that kafkajs gave up on. kafkajs restarts a crashed
// consumer only after an error it counts as retriable; a broker that stays
// away longer than its retries can end in a crash it does not restart (the
// Kafka outage test saw it), and the stage would then consume nothing more for
// as long as the process lived. Here such a crash is followed by another
// `consumer.run()` after a backoff that grows with each crash in a row. A
// crash while starting is reported the same way, so each one schedules the
// next try; joining the group again resets the count. Nothing restarts once
// the consumer is stopping.

const { backoff } = require('./runner-settings')

/**
 * @param {{ consumer: Pick<import('kafkajs').Consumer, 'on' | 'run' | 'events'>, runConfig: import('kafkajs').ConsumerRunConfig,
 *   isStopping: () => boolean, backoffMs: number, logger: import('pino').Logger,
 *   setTimer?: (fn: () => void, ms: number) => void }} opts
 *   setTimer: schedules a restart (tests); an unref'd timer by default
 */
function restartCrashedConsumer ({ consumer, runConfig, isStopping, backoffMs, logger, setTimer = defaultTimer }) {
  let crashes = 0
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (isStopping()) return
    crashes++
    logger.error({ err: payload.error, restartedByKafkajs: payload.restart, crashes }, 'consumer crashed')
    if (payload.restart) return
    setTimer(() => {
      if (isStopping()) return
      logger.warn({ crashes }, 'restarting the consumer')
      consumer.run(runConfig).catch((err) => logger.error({ err }, 'restarting the consumer failed'))
    }, backoff(crashes + 1, backoffMs))
  })
  consumer.on(consumer.events.GROUP_JOIN, () => { crashes = 0 })
}

/** @param {() => void} fn @param {number} ms */
function defaultTimer (fn, ms) {
  setTimeout(fn, ms).unref()
}

module.exports = { restartCrashedConsumer }
