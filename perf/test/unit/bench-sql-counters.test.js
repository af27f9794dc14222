'use strict'

const { sqlDelta, kilobytes, COUNTERS } = require('../../src/bench/accounting')

const zeros = Object.fromEntries(COUNTERS.map((c) => [c, 0]))

test('every kind of data statement counts, multi-table UPDATE and DELETE, INSERT … SELECT and REPLACE included', () => {
  const after = { ...zeros, Com_select: 4, Com_insert: 3, Com_insert_select: 1, Com_replace: 1, Com_update: 2, Com_update_multi: 5, Com_delete: 1, Com_delete_multi: 2, Com_commit: 3 }
  const d = sqlDelta(zeros, after, 10)
  expect(d.statements).toBe(19)
  expect(d.byKind).toEqual({ select: 4, insert: 5, update: 7, delete: 3, set: 0 })
  expect(sqlDelta(zeros, { ...zeros, Com_set_option: 4 }, 2).statementsPerTransfer).toBe(2)
  expect(d.statementsPerTransfer).toBe(1.9)
  expect(d.commitsPerTransfer).toBe(0.3)
  expect(sqlDelta(zeros, { ...zeros, Com_update_multi: 10 }, 10).statementsPerTransfer).toBe(1)
  expect(sqlDelta(zeros, after, 0).statementsPerTransfer).toBeNull()
})

test('disk page reads, pages created and pages written are counted per transfer, apart from the statements', () => {
  const after = { ...zeros, Com_insert: 10, Innodb_buffer_pool_reads: 49, Innodb_pages_created: 26, Innodb_pages_written: 57 }
  const d = sqlDelta(zeros, after, 10)
  expect(d.pageReadsPerTransfer).toBe(4.9)
  expect(d.pagesCreatedPerTransfer).toBe(2.6)
  expect(d.pagesWrittenPerTransfer).toBe(5.7)
  expect(d.statements).toBe(10)
  expect(sqlDelta(zeros, after, 0).pageReadsPerTransfer).toBeNull()
})

test('the bytes of SQL received and of redo written are counted per transfer, and printed in KB', () => {
  const after = { ...zeros, Bytes_received: 46_210, Innodb_os_log_written: 21_004 }
  const d = sqlDelta(zeros, after, 10)
  expect(d.sqlBytesPerTransfer).toBe(4621)
  expect(d.redoBytesPerTransfer).toBe(2100)
  expect(sqlDelta(zeros, after, 0).sqlBytesPerTransfer).toBeNull()
  expect([kilobytes(d.sqlBytesPerTransfer), kilobytes(d.redoBytesPerTransfer), kilobytes(null)]).toEqual(['4.6 KB', '2.1 KB', '–'])
})
