'use strict'

// Delivers callbacks. Each participant has its own lane — the callbacks that
// are due, and at most CALLBACK_CONCURRENCY requests in flight — so a slow or
// dead participant fills only its own slots and never delays another's.
// A callback waiting for its next attempt holds no slot: it waits on a timer.
// Outcomes go to the write-behind buffer. A callback that runs out of
// attempts, or whose endpoint can never work, is dead-lettered and only then
// marked FAILED: a crash in between dead-letters it twice rather than never.
//
// A new callback is tried before its row exists (deliverFirst): the consumer
// writes the row in the state its first attempt left it in, with the attempt,
// in the transaction that records the notification as applied. Until that
// transaction has committed (written), the callback's later outcomes wait
// with it, so no update ever reaches the database before its row.
//
// Earlier still (deliverEarly): a stage in this process whose transaction has
// just committed a notification hands it over before it is even produced
// (CALLBACK_EARLY). Its callback is tried at once, under a provisional id, and
// waits, whatever its first attempt's outcome, for the notification's record
// to reach deliverFirst, which adopts it by its content: the record's id
// replaces the provisional one, and from there it is any other callback.
// Until then it makes one attempt and no more, holds no lease and is not
// written anywhere; one never adopted (its record went to another replica
// after a rebalance) is dropped after EARLY_KEEP_MS, and its record's owner
// delivers it again, as callbacks are at least once.

const { performance } = require('node:perf_hooks')
const { traceCallback } = require('./trace-callback')
const { toWire } = require('@switchyard/shared/kafka')
const { retryDelay } = require('./backoff')
const { callbackUrl, callbackHeaders, EndpointError } = require('./url')
const { failedToDeadLetter } = require('./message')
const { describeError, callbackOutcome } = require('./deliver')

/**
 * @typedef {import('./message').Job} Job
 * @typedef {{ kind: 'attempt', row: import('./write-buffer').AttemptRow } | { kind: 'update', row: import('./write-buffer').UpdateRow }} Note
 * @typedef {{ job: Job, state: import('./write-buffer').UpdateRow | null, attempts: import('./write-buffer').AttemptRow[] }} FirstOutcome
 *   a callback's row as deliverFirst leaves it: `state` null means PENDING, never attempted
 */
const { NO_CALLBACK_METRICS } = require('@switchyard/shared/metrics')
const { settledWithin } = require('@switchyard/shared/settled-within')

/** How long a callback tried early waits for its record before it is forgotten. */
const EARLY_KEEP_MS = 60000
/**
 * Most callbacks waiting for their records at once (some 30 MB). More wait
 * only when the notification consumer lags far behind the stages, or a
 * participant's lane is full; past this their records deliver them.
 */
const EARLY_MAX = 10000

/**
 * @param {{ config: import('@switchyard/shared/config').Config, logger: import('pino').Logger,
 *   endpoints: ReturnType<typeof import('./endpoints').createEndpointCache>,
 *   http: ReturnType<typeof import('./deliver').createHttpClient>,
 *   writer: ReturnType<typeof import('./write-buffer').createWriteBuffer>,
 *   producer: { send: (messages: import('./message').WireMessage[]) => Promise<void> },
 *   deadLetterTopic: string, callbacks?: { attempt: (outcome: string, seconds: number) => void, failed: () => void }, earlyMax?: number }} deps
 *   `callbacks` (metrics) hears each attempt's outcome and duration, and each callback that failed;
 *   `earlyMax`: most callbacks tried early that wait for their records at once
 */
function createDispatcher ({ config, logger, endpoints, http, writer, producer, deadLetterTopic, callbacks = NO_CALLBACK_METRICS, earlyMax = EARLY_MAX }) {
  const limits = { baseMs: config.CALLBACK_BACKOFF_MS, maxMs: config.CALLBACK_MAX_BACKOFF_MS }
  const maxAttempts = config.CALLBACK_MAX_ATTEMPTS
  const concurrency = config.CALLBACK_CONCURRENCY
  /** @type {Map<string, Job>} every callback this instance owns and has not finished */
  const held = new Map()
  /**
   * Callbacks tried before their rows were written (finished or not), until
   * the consumer's transaction commits. A batch whose transaction never
   * commits here (dead-lettered, or its partition handed to another replica)
   * leaves its callbacks in this map until the process stops: rare, and no
   * more than such batches hold. One whose commit succeeded while the
   * database reported an error (the retry then finds the batch applied and
   * never hears of it) is found by recovery (`unwrittenBetween`), which calls
   * written() for it.
   * @type {Map<string, Job>}
   */
  const unwritten = new Map()
  /**
   * Callbacks tried early (deliverEarly), by content, oldest first, until
   * deliverFirst adopts them or EARLY_KEEP_MS passes.
   * @type {Map<string, Job>}
   */
  const early = new Map()
  let earlySeq = 0
  /** @type {Map<string, { ready: Job[], inFlight: number }>} one lane per participant */
  const lanes = new Map()
  /** @type {Map<string, NodeJS.Timeout>} */
  const timers = new Map()
  /** @type {Set<Promise<void>>} */
  const running = new Set()
  let stopping = false
  let aborting = false

  /** Takes ownership of callbacks (already claimed in the database). @param {Job[]} jobs */
  function enqueue (jobs) {
    for (const job of jobs) {
      if (stopping || held.has(job.callbackId)) continue
      if (job.attempts >= maxAttempts) job.exhausted = true
      held.set(job.callbackId, job)
      waitFor(job, job.dueInMs)
    }
  }

  /**
   * Callbacks whose lease this instance lost: its renewals failed for longer
   * than the lease (a database stall, a long pause) and another replica took
   * them over. They are dropped here, so that two replicas do not both go on
   * delivering one callback, and this one does not dead-letter what the other
   * delivers. An attempt in flight finishes; nothing follows it.
   * @param {string[]} ids
   */
  function forget (ids) {
    for (const id of ids) {
      const job = held.get(id)
      if (!job || unwritten.has(id)) continue
      held.delete(id)
      job.lost = true
      const timer = timers.get(id)
      if (timer) clearTimeout(timer)
      timers.delete(id)
      const lane = lanes.get(job.participant)
      if (lane) lane.ready = lane.ready.filter((j) => j !== job)
    }
  }

  /** @param {Job} job @param {number} ms */
  function waitFor (job, ms) {
    // Stopping: the row stays PENDING in the database and is released for others.
    if (stopping) {
      held.delete(job.callbackId)
      return
    }
    // Tried early and not adopted yet: its next step waits for its record.
    if (job.earlyAt !== undefined) {
      job.parkedFor = Date.now() + ms
      return
    }
    if (ms <= 0) return ready(job)
    timers.set(job.callbackId, setTimeout(() => { timers.delete(job.callbackId); ready(job) }, ms))
  }

  /** @param {Job} job */
  function ready (job) {
    let lane = lanes.get(job.participant)
    if (!lane) lanes.set(job.participant, (lane = { ready: [], inFlight: 0 }))
    lane.ready.push(job)
    pump(job.participant, lane)
  }

  /** @param {string} participant @param {{ ready: Job[], inFlight: number }} lane */
  function pump (participant, lane) {
    while (lane.inFlight < concurrency && lane.ready.length) {
      if (stopping) return
      const job = /** @type {Job} */ (lane.ready.shift())
      lane.inFlight++
      const run = attempt(job)
        .catch((err) => {
          // A bug, not a delivery failure: let the lease lapse so recovery retries it.
          logger.error({ err, callbackId: job.callbackId }, 'callback dispatch failed')
          held.delete(job.callbackId)
        })
        .finally(() => {
          running.delete(run)
          job.running = undefined
          lane.inFlight--
          if (lane.inFlight === 0 && !lane.ready.length) lanes.delete(participant)
          else pump(participant, lane)
        })
      running.add(run)
      job.running = run
    }
  }

  /**
   * How long each participant has been taking to answer (a moving average;
   * a failed attempt counts as too long): deliverFirst does not wait for a
   * participant that answers more slowly than its wait, so one slow
   * participant costs the others' next batch nothing.
   * @type {Map<string, number>}
   */
  const answerMs = new Map()

  /** @param {string} participant @param {number} ms */
  function learn (participant, ms) {
    const before = answerMs.get(participant)
    answerMs.set(participant, before === undefined || !Number.isFinite(before) || !Number.isFinite(ms) ? ms : 0.8 * before + 0.2 * ms)
  }

  /**
   * Where an outcome goes: to the write buffer, or, while the callback's row
   * is not written, to the callback itself.
   * @param {Job} job @param {Note['kind']} kind @param {any} row an AttemptRow or an UpdateRow
   */
  function note (job, kind, row) {
    if (job.notes) job.notes.push({ kind, row })
    else if (kind === 'attempt') writer.attempt(row)
    else writer.update(row)
  }

  /**
   * Tries new callbacks at once, before their rows are written. Resolves when
   * the first attempts that could start (a free slot in the participant's
   * lane) have settled — except those to participants that have been
   * answering more slowly than `waitMs` — or after `waitMs`, with each callback's state to
   * write: its latest outcome (none: still PENDING with no attempt) and the
   * attempts made. A callback it already holds unwritten (the consumer's
   * transaction is being retried) is not tried again.
   * @param {Job[]} jobs
   * @param {number} waitMs
   * @returns {Promise<FirstOutcome[]>}
   */
  async function deliverFirst (jobs, waitMs) {
    const now = Date.now()
    const mine = jobs.map((job) => {
      const known = unwritten.get(job.callbackId)
      if (known) {
        known.unwrittenAt = now
        return known
      }
      const tried = early.size && job.content ? adopt(job.callbackId, job.content, now) : undefined
      if (tried) return tried
      job.notes = []
      own(job, now)
      if (!stopping) ready(job)
      return job
    })
    /** @type {Promise<void>[]} */
    const firsts = []
    for (const job of mine) if (job.running && (answerMs.get(job.participant) ?? 0) <= waitMs) firsts.push(job.running)
    if (firsts.length && waitMs > 0) await settledWithin(Promise.all(firsts), waitMs)
    return mine.map(snapshot)
  }

  /**
   * Tries callbacks at once, ahead of their notification's record, which
   * deliverFirst then matches with them (adopt). A callback whose twin is
   * already waiting is left to its record, and so is any beyond earlyMax.
   * @param {Job[]} jobs
   */
  function deliverEarly (jobs) {
    if (stopping) return
    const now = Date.now()
    for (const [key, job] of early) {
      if ((job.earlyAt ?? 0) > now - EARLY_KEEP_MS) break
      early.delete(key)
    }
    for (const job of jobs) {
      if (early.size >= earlyMax) return
      const key = job.content
      if (!key || early.has(key)) continue
      job.callbackId = `early:${++earlySeq}`
      job.earlyAt = now
      job.notes = []
      early.set(key, job)
      ready(job)
    }
  }

  /**
   * The callback tried early with this content, if any, now known by the
   * record's id (its outcomes so far too) and owned as deliverFirst's own.
   * @param {string} callbackId @param {string} key @param {number} now
   * @returns {Job | undefined}
   */
  function adopt (callbackId, key, now) {
    const job = early.get(key)
    if (!job) return undefined
    early.delete(key)
    job.callbackId = callbackId
    job.earlyAt = undefined
    for (const n of job.notes || []) n.row.callbackId = callbackId
    own(job, now)
    // Its next step was put off until now (waitFor).
    if (job.parkedFor !== undefined) {
      const ms = job.parkedFor - now
      job.parkedFor = undefined
      waitFor(job, ms)
    }
    return job
  }

  /**
   * Makes a callback deliverFirst's own: unwritten until its batch's rows
   * are, and held (its attempts still to come) unless it is done.
   * @param {Job} job @param {number} now
   */
  function own (job, now) {
    job.unwrittenAt = now
    unwritten.set(job.callbackId, job)
    if (!job.done && !stopping) held.set(job.callbackId, job)
  }

  /**
   * The row a callback's notes so far describe; they are now in it.
   * @param {Job} job @returns {FirstOutcome}
   */
  function snapshot (job) {
    const notes = job.notes || []
    job.noted = notes.length
    /** @type {import('./write-buffer').UpdateRow | null} */
    let state = null
    /** @type {import('./write-buffer').AttemptRow[]} */
    const attempts = []
    for (const n of notes) {
      if (n.kind === 'attempt') attempts.push(n.row)
      else state = n.row
    }
    const last = attempts[attempts.length - 1]
    // An attempt without a state yet: it failed for good and the callback
    // is being dead-lettered; FAILED follows once the row exists.
    if (!state && last) state = { callbackId: job.callbackId, status: 'PENDING', attempts: last.attempt, lastError: last.error, nextAttemptAt: null, deliveredAt: null }
    return { job, state, attempts }
  }

  /**
   * The rows of these callbacks are committed (as deliverFirst described
   * them): what happened to them since goes to the write buffer, and so does
   * everything from now on.
   * @param {Job[]} jobs
   */
  function written (jobs) {
    for (const job of jobs) {
      if (unwritten.get(job.callbackId) !== job) continue
      unwritten.delete(job.callbackId)
      const later = (job.notes || []).slice(job.noted || 0)
      job.notes = undefined
      for (const n of later) note(job, n.kind, n.row)
    }
  }

  /**
   * Callbacks whose consumer's transaction last took them up (deliverFirst)
   * between `from` and `to` (ms since the epoch) and has not said they are
   * written: a transaction takes milliseconds, so these are the ones whose
   * commit went unheard, or never came.
   * @param {number} from @param {number} to @returns {Job[]}
   */
  function unwrittenBetween (from, to) {
    return [...unwritten.values()].filter((job) => job.unwrittenAt !== undefined && job.unwrittenAt >= from && job.unwrittenAt <= to)
  }

  /** One delivery attempt, holding one of the participant's slots. @param {Job} job */
  async function attempt (job) {
    if (job.lost) return
    if (job.exhausted) return giveUp(job)
    let endpoint
    try {
      endpoint = await endpoints.get(job.participant, job.endpointType)
    } catch (err) {
      // The database failed, not the participant: retry without spending an attempt.
      logger.warn({ err, participant: job.participant }, 'could not read callback endpoints')
      return waitFor(job, retryDelay(job.attempts + 1, limits))
    }
    const n = job.attempts + 1
    const at = new Date()
    const t0 = performance.now()
    /** @type {string | null} */ let url = null
    /** @type {number | null} */ let statusCode = null
    /** @type {string | null} */ let error = null
    let failure
    try {
      if (!endpoint.registered) throw new EndpointError(`participant ${job.participant} is not registered`)
      // Retried like an endpoint that is down: an operator may register it in the meantime.
      if (!endpoint.value) throw new EndpointError(`participant ${job.participant} has no ${job.endpointType} endpoint registered`, { retriable: true })
      url = callbackUrl(endpoint.value, job)
      const target = url
      ;({ statusCode } = await traceCallback(job, target, (headers) => http.send({ url: target, method: job.method, headers: callbackHeaders(headers, job), body: job.body })))
      if (statusCode < 200 || statusCode > 299) error = `HTTP ${statusCode} from ${url}`.slice(0, 500)
    } catch (err) {
      failure = err
      error = describeError(err)
      if (err instanceof EndpointError && !err.retriable) job.exhausted = true
    }
    // Cut short by this instance's own shutdown: not the participant's
    // failure, so it spends none of its attempts (it could be the last one,
    // and dead-letter a callback over a rollout). The row stays as it was,
    // PENDING, and the claim released at stop lets another instance retry it.
    if (aborting && failure) {
      logger.warn({ callbackId: job.callbackId, participant: job.participant, attempt: n }, 'callback attempt aborted by shutdown; not counted')
      return
    }
    job.attempts = n
    const durationMs = performance.now() - t0
    // Taken over meanwhile: the other replica records and retries it.
    if (job.lost) return
    learn(job.participant, error ? Infinity : durationMs)
    // callback_attempt.url holds 1,024 characters: a longer URL (a registered value percent-encoded) is cut, never left unwritable.
    note(job, 'attempt', { callbackId: job.callbackId, attempt: n, url: url === null ? null : url.slice(0, 1024), statusCode, error, durationMs: Math.round(durationMs), at })
    callbacks.attempt(callbackOutcome(statusCode, failure), durationMs / 1000)
    if (!error) {
      held.delete(job.callbackId)
      job.done = true
      note(job, 'update', { callbackId: job.callbackId, status: 'DELIVERED', attempts: n, lastError: null, nextAttemptAt: null, deliveredAt: new Date() })
      return
    }
    job.lastError = error
    if (job.exhausted || n >= maxAttempts) {
      job.exhausted = true
      return giveUp(job)
    }
    const delay = retryDelay(n, limits)
    note(job, 'update', { callbackId: job.callbackId, status: 'PENDING', attempts: n, lastError: error, nextAttemptAt: new Date(Date.now() + delay), deliveredAt: null })
    waitFor(job, delay)
  }

  /** Dead-letters, then records FAILED. @param {Job} job */
  async function giveUp (job) {
    // Tried early: dead-lettered once adopted, as its record's own.
    if (job.earlyAt !== undefined) return waitFor(job, 0)
    try {
      await producer.send([toWire(failedToDeadLetter(job, deadLetterTopic))])
    } catch (err) {
      logger.warn({ err, callbackId: job.callbackId }, 'could not dead-letter a failed callback; will retry')
      const retryAt = new Date(Date.now() + limits.maxMs)
      note(job, 'update', { callbackId: job.callbackId, status: 'PENDING', attempts: job.attempts, lastError: job.lastError ?? null, nextAttemptAt: retryAt, deliveredAt: null })
      return waitFor(job, limits.maxMs)
    }
    held.delete(job.callbackId)
    job.done = true
    callbacks.failed()
    note(job, 'update', { callbackId: job.callbackId, status: 'FAILED', attempts: job.attempts, lastError: job.lastError ?? null, nextAttemptAt: null, deliveredAt: null })
    logger.warn({ callbackId: job.callbackId, participant: job.participant, attempts: job.attempts, error: job.lastError }, 'callback failed; dead-lettered')
  }

  /**
   * Stops taking work: no new attempts start, waiting callbacks are dropped
   * (they stay PENDING in the database), requests in flight get `drainMs` to
   * finish and are then aborted. Their outcomes reach the write buffer; an
   * aborted attempt records nothing and spends no attempt (attempt()).
   * @param {number} drainMs
   */
  async function stop (drainMs) {
    stopping = true
    for (const t of timers.values()) clearTimeout(t)
    timers.clear()
    if (running.size && !(await settledWithin(Promise.allSettled([...running]), drainMs))) {
      logger.warn({ inFlight: running.size }, 'aborting callbacks still in flight at shutdown')
      aborting = true
      await http.destroy()
      await Promise.allSettled([...running])
    }
    held.clear()
    lanes.clear()
    unwritten.clear()
    early.clear()
  }

  return {
    enqueue,
    deliverEarly,
    deliverFirst,
    written,
    unwrittenBetween,
    stop,
    forget,
    heldIds: () => [...held.keys()],
    size: () => held.size
  }
}

module.exports = { createDispatcher }
