'use strict'

const { withFoldedTransaction } = require('@switchyard/shared/db')

// The notification handler's SQL. Every statement is multi-row: one read with
// BEGIN and two INSERTs (callbacks, attempts) with COMMIT per consumed batch,
// one INSERT + one UPDATE per write-behind flush, one UPDATE
// per lease renewal or recovery sweep. Lease times come from the database
// clock (NOW(3)), so replicas with skewed clocks still agree on who owns what.

/** @typedef {import('./message').Job} Job */

const RENEW_CHUNK = 1000

/** @param {number} n @param {string} tuple */
const tuples = (n, tuple) => Array.from({ length: n }, () => tuple).join(', ')

/**
 * One INSERT for delivery attempts.
 * @param {import('./write-buffer').AttemptRow[]} attempts
 */
function attemptsInsert (attempts) {
  return {
    sql: `INSERT INTO callback_attempt (callback_id, attempt, url, status_code, error, duration_ms, created_at)
       VALUES ${tuples(attempts.length, '(?, ?, ?, ?, ?, ?, ?)')}`,
    bindings: attempts.flatMap((a) => [a.callbackId, a.attempt, a.url, a.statusCode, a.error, a.durationMs, a.at])
  }
}

/**
 * Which of these callbacks have rows already: read with BEGIN in the
 * consumer's first round trip, so a record redelivered without its progress
 * (the runner would skip it otherwise) is not delivered a second time.
 * @param {string[]} callbackIds
 */
function existingCallbacksQuery (callbackIds) {
  return {
    sql: `SELECT callback_id FROM callback WHERE callback_id IN (${tuples(callbackIds.length, '?') || 'NULL'})`,
    bindings: callbackIds
  }
}

/** @param {string} text */
function parseHeaders (text) {
  try {
    const h = JSON.parse(text)
    return h && typeof h === 'object' ? h : {}
  } catch {
    return {}
  }
}

/** @param {any} r @returns {Job} */
const toJob = (r) => ({
  callbackId: r.callback_id,
  participant: r.participant,
  transferId: r.transfer_id,
  endpointType: r.endpoint_type,
  method: r.method,
  path: r.path,
  headers: parseHeaders(r.headers),
  body: r.body,
  attempts: Number(r.attempts),
  dueInMs: Number(r.due_in_ms),
  lastError: r.last_error
})

/**
 * @param {import('knex').Knex} db
 * @param {{ instanceId: string, leaseMs: number }} opts
 */
function createRepository (db, { instanceId, leaseMs }) {
  const leaseMicros = leaseMs * 1000

  /**
   * Adds the batch's callback rows to the transaction's write batch (no
   * round trip of its own), each in the state its first attempt left it in
   * (dispatcher.deliverFirst), with the attempts made: a callback delivered
   * at once costs these two rows and nothing more. Rows still PENDING are
   * claimed by this instance. message.js has checked every length and type.
   * A row written DELIVERED keeps no headers and no body: it is never sent
   * again, what was sent is in the Kafka record and the trace, and those two
   * columns were most of what the handler escaped and MariaDB lexed and
   * stored per callback.
   * Plain INSERT: a row that exists already (a record redelivered without
   * its progress) was left out by the handler (existingCallbacksQuery), and a
   * duplicate here fails the transaction rather than hiding.
   * @param {ReturnType<typeof import('@switchyard/shared/db').createWriteBatch>} writes
   * @param {import('./dispatcher').FirstOutcome[]} firsts
   */
  function insertCallbacks (writes, firsts) {
    writes.add(
      `INSERT INTO callback (callback_id, participant, transfer_id, endpoint_type, method, path, headers, body,
         status, attempts, last_error, next_attempt_at, delivered_at, claimed_by, claim_until)
       VALUES ${tuples(firsts.length, "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, COALESCE(?, NOW(3)), ?, ?, IF(? = 'PENDING', NOW(3) + INTERVAL ? MICROSECOND, NULL))")}`,
      firsts.flatMap(({ job: j, state }) => {
        const status = state ? state.status : 'PENDING'
        const slim = status === 'DELIVERED'
        return [j.callbackId, j.participant, j.transferId, j.endpointType, j.method, j.path,
          slim ? '' : JSON.stringify(j.headers), slim ? null : j.body,
          status, state ? state.attempts : 0, state ? state.lastError : null, state ? state.nextAttemptAt : null,
          state ? state.deliveredAt : null, instanceId, status, leaseMicros]
      }))
    const attempts = firsts.flatMap((f) => f.attempts)
    if (attempts.length) {
      const { sql, bindings } = attemptsInsert(attempts)
      writes.add(sql, bindings)
    }
  }

  async function loadEndpoints (participant) {
    const [rows] = await db.raw(
      `SELECT e.endpoint_type, e.value FROM participant p
         LEFT JOIN participant_endpoint e ON e.participant_id = p.participant_id
        WHERE p.name = ?`, [participant])
    /** @type {Record<string, string>} */
    const endpoints = {}
    for (const r of rows) if (r.endpoint_type) endpoints[r.endpoint_type] = r.value
    return { registered: rows.length > 0, endpoints }
  }

  /**
   * One write-behind flush, one transaction: every attempt in one INSERT, and
   * every callback's latest state in one UPDATE joined to a derived table.
   * Only rows this instance still owns are updated: a replica that lost its
   * lease never overwrites the new owner's state. A callback delivered at
   * last drops its headers and body, as one delivered at once never stored
   * them (insertCallbacks).
   * @param {{ attempts: import('./write-buffer').AttemptRow[], updates: import('./write-buffer').UpdateRow[] }} batch
   */
  async function writeOutcomes ({ attempts, updates }) {
    /** @type {{ sql: string, bindings: any[] }[]} */
    const statements = []
    if (attempts.length) statements.push(attemptsInsert(attempts))
    if (updates.length) {
      const row = 'SELECT ? AS callback_id, ? AS status, ? AS attempts, ? AS last_error, ' +
        'CAST(? AS DATETIME(3)) AS next_attempt_at, CAST(? AS DATETIME(3)) AS delivered_at'
      statements.push({
        sql: `UPDATE callback c JOIN (${Array.from(updates, () => row).join(' UNION ALL ')}) u
              ON u.callback_id = c.callback_id
             SET c.status = u.status, c.attempts = u.attempts, c.last_error = u.last_error,
                 c.next_attempt_at = COALESCE(u.next_attempt_at, c.next_attempt_at),
                 c.delivered_at = u.delivered_at,
                 c.headers = IF(u.status = 'DELIVERED', '', c.headers),
                 c.body = IF(u.status = 'DELIVERED', NULL, c.body),
                 c.claim_until = IF(u.status = 'PENDING', NOW(3) + INTERVAL ? MICROSECOND, NULL)
           WHERE c.claimed_by = ?`,
        bindings: [...updates.flatMap((u) => [u.callbackId, u.status, u.attempts, u.lastError, u.nextAttemptAt, u.deliveredAt]),
          leaseMicros, instanceId]
      })
    }
    if (!statements.length) return
    // BEGIN travels with the statements and COMMIT follows: two round trips, not four.
    await withFoldedTransaction(db, async ({ begin }) => { await begin(statements) })
  }

  /**
   * Extends the lease of callbacks this instance still holds (waiting for a
   * slot, in flight, or between retries).
   * @param {string[]} ids
   * @returns {Promise<string[]>} those whose rows another instance holds now, or that are
   *   finished: this one lost them (a callback whose row is not written yet is not among them)
   */
  async function renewLeases (ids) {
    /** @type {string[]} */
    const lost = []
    for (let i = 0; i < ids.length; i += RENEW_CHUNK) {
      const chunk = ids.slice(i, i + RENEW_CHUNK)
      const [result] = await db.raw(
        `UPDATE callback SET claim_until = NOW(3) + INTERVAL ? MICROSECOND
          WHERE callback_id IN (${tuples(chunk.length, '?')}) AND claimed_by = ? AND status = 'PENDING'`,
        [leaseMicros, ...chunk, instanceId])
      if (result.affectedRows >= chunk.length) continue
      const [rows] = await db.raw(
        `SELECT callback_id FROM callback
          WHERE callback_id IN (${tuples(chunk.length, '?')}) AND (claimed_by IS NULL OR claimed_by <> ? OR status <> 'PENDING')`,
        [...chunk, instanceId])
      lost.push(...rows.map((/** @type {{ callback_id: string }} */ r) => r.callback_id))
    }
    return lost
  }

  /**
   * Which of these callbacks have rows that this instance wrote (whatever
   * their status): their consumer's transaction committed.
   * @param {string[]} ids
   * @returns {Promise<string[]>}
   */
  async function writtenByMe (ids) {
    /** @type {string[]} */
    const found = []
    for (let i = 0; i < ids.length; i += RENEW_CHUNK) {
      const chunk = ids.slice(i, i + RENEW_CHUNK)
      const [rows] = await db.raw(
        `SELECT callback_id FROM callback WHERE callback_id IN (${tuples(chunk.length, '?')}) AND claimed_by = ?`,
        [...chunk, instanceId])
      found.push(...rows.map((/** @type {{ callback_id: string }} */ r) => r.callback_id))
    }
    return found
  }

  /**
   * Takes over pending callbacks whose lease lapsed (a crashed replica) or
   * was released (a stopped one) with one atomic UPDATE, then reads back
   * exactly the rows this sweep claimed: they carry its claim_until value.
   * @param {number} limit
   * @returns {Promise<Job[]>}
   */
  async function claimLapsed (limit) {
    const [[{ now }]] = await db.raw('SELECT NOW(3) AS now')
    const until = new Date(now.getTime() + leaseMs)
    const [result] = await db.raw(
      `UPDATE callback SET claimed_by = ?, claim_until = ?
        WHERE status = 'PENDING' AND (claim_until IS NULL OR claim_until < ?)
        LIMIT ?`, [instanceId, until, now, limit])
    if (!result.affectedRows) return []
    const [rows] = await db.raw(
      `SELECT callback_id, participant, transfer_id, endpoint_type, method, path, headers, body, attempts, last_error,
              GREATEST(0, TIMESTAMPDIFF(MICROSECOND, ?, next_attempt_at)) DIV 1000 AS due_in_ms
         FROM callback
        WHERE status = 'PENDING' AND claim_until = ? AND claimed_by = ?`, [now, until, instanceId])
    return rows.map(toJob)
  }

  /**
   * On a graceful stop: what this instance did not finish may be taken over
   * at once instead of after the lease.
   */
  async function releaseClaims () {
    await db.raw("UPDATE callback SET claim_until = NULL WHERE status = 'PENDING' AND claimed_by = ?", [instanceId])
  }

  /**
   * Deletes up to `limit` callbacks created before `before` that are no
   * longer pending (delivered, or failed and dead-lettered), oldest first,
   * with their attempts, in one transaction. Replicas may run this at once:
   * a row deleted by another is simply not there.
   * @param {Date} before @param {number} limit
   * @returns {Promise<number>} callbacks deleted
   */
  async function purgeFinished (before, limit) {
    const [rows] = await db.raw(
      `SELECT callback_id FROM callback
        WHERE created_at < ? AND status <> 'PENDING'
        ORDER BY created_at LIMIT ?`, [before, limit])
    if (!rows.length) return 0
    const ids = rows.map((/** @type {any} */ r) => r.callback_id)
    const list = tuples(ids.length, '?')
    let deleted = 0
    await withFoldedTransaction(db, async ({ begin, writes }) => {
      await begin([{ sql: `DELETE FROM callback_attempt WHERE callback_id IN (${list})`, bindings: ids }])
      writes.add(`DELETE FROM callback WHERE callback_id IN (${list}) AND status <> 'PENDING'`, ids, (r) => { deleted = r.affectedRows })
    })
    return deleted
  }

  return { insertCallbacks, loadEndpoints, writeOutcomes, renewLeases, writtenByMe, claimLapsed, releaseClaims, purgeFinished }
}

module.exports = { createRepository, existingCallbacksQuery }
