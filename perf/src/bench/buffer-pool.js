'use strict'

// A large ledger in the buffer pool, as a switch that has been running has it.
//
// Participants choose transfer ids, usually random (UUID v4), so each new
// transfer lands on a random leaf page of every index keyed by transfer id:
// the `transfer` table itself and the transfer-id indexes of its state and
// position changes. A switch that has run for a while with a buffer pool
// that holds those indexes has them in memory; one whose pool is smaller
// reads a page from disk for most of them, whatever it does. A campaign
// that starts its database server afresh would measure neither: the first
// minutes of a cold pool. So before a campaign on a kept ledger, the indexes
// keyed by transfer id are read once, if they fit; if they do not, nothing
// is read (they would only evict each other), and the report says so.

/** The share of the buffer pool those indexes may take; the rest serves everything else. */
const MAX_POOL_SHARE = 0.75

/**
 * Every index whose first column is transfer_id, with its size from
 * InnoDB's persistent statistics (pages × page size).
 * @param {import('knex').Knex} db @param {string} dbName
 * @returns {Promise<{ table: string, index: string, bytes: number }[]>}
 */
async function transferIdIndexes (db, dbName) {
  const [rows] = await db.raw(`SELECT s.TABLE_NAME AS t, s.INDEX_NAME AS i, st.stat_value * @@innodb_page_size AS bytes
    FROM information_schema.STATISTICS s
    JOIN mysql.innodb_index_stats st ON st.database_name = s.TABLE_SCHEMA AND st.table_name = s.TABLE_NAME
      AND st.index_name = s.INDEX_NAME AND st.stat_name = 'size'
    WHERE s.TABLE_SCHEMA = ? AND s.COLUMN_NAME = 'transfer_id' AND s.SEQ_IN_INDEX = 1
    ORDER BY bytes DESC`, [dbName])
  return rows.map((/** @type {any} */ r) => ({ table: r.t, index: r.i, bytes: Number(r.bytes) }))
}

/**
 * The plan, pure: read them all when they fit in their share of the pool.
 * @param {{ table: string, index: string, bytes: number }[]} indexes @param {number} poolBytes
 */
function warmPlan (indexes, poolBytes) {
  const bytes = indexes.reduce((n, x) => n + x.bytes, 0)
  return { bytes, poolBytes, fits: bytes <= poolBytes * MAX_POOL_SHARE }
}

const mib = (/** @type {number} */ b) => Math.round(b / 2 ** 20)

/**
 * Reads the indexes keyed by transfer id into the buffer pool when they fit.
 * @param {import('knex').Knex} db @param {string} dbName @param {(m: string) => void} say
 */
async function warmTransferIdIndexes (db, dbName, say) {
  const indexes = await transferIdIndexes(db, dbName)
  const [[pool]] = await db.raw('SELECT @@innodb_buffer_pool_size AS size')
  const plan = warmPlan(indexes, Number(pool.size))
  const out = { indexesMiB: mib(plan.bytes), bufferPoolMiB: mib(plan.poolBytes), warmed: false, seconds: 0, diskPageReads: 0 }
  if (!plan.fits) {
    say(`buffer pool: the indexes keyed by transfer id take ${out.indexesMiB} MiB, more than ${MAX_POOL_SHARE * 100}% of the ${out.bufferPoolMiB} MiB pool; ` +
      'new transfers will read most of their pages from disk, as on a switch with this pool (STACK_DB_BUFFER_POOL asks for a larger one)')
    return out
  }
  const reads = async () => { const [[r]] = await db.raw("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_reads'"); return Number(r.Value) }
  const before = await reads()
  const started = performance.now()
  // FORCE INDEX makes COUNT(*) walk that index's leaf pages: PRIMARY is the table itself.
  for (const x of indexes) await db.raw('SELECT COUNT(*) FROM ?? FORCE INDEX (??)', [x.table, x.index])
  out.seconds = Math.round((performance.now() - started) / 100) / 10
  out.diskPageReads = (await reads()) - before
  out.warmed = true
  if (out.diskPageReads) say(`buffer pool: read the indexes keyed by transfer id (${out.indexesMiB} MiB of a ${out.bufferPoolMiB} MiB pool) in ${out.seconds} s, ${out.diskPageReads} pages from disk`)
  return out
}

module.exports = { warmTransferIdIndexes, transferIdIndexes, warmPlan, MAX_POOL_SHARE }
