#!/usr/bin/env node
'use strict'

// The gap report: where each transfer's time went, from trace files.
//
//   npm run gaps -- <trace files or dirs…> [--transfer ID]… [--top N] [--html out.html] [--json]
//
// Exit codes: 0 report written; 1 nothing to report (no spans, no
// transfers, an unknown --transfer, an unreadable path); 2 bad arguments.

const fs = require('node:fs')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { loadSpans } = require('./load')
const { buildReport, toJson } = require('./report')
const { toText } = require('./report-text')
const { toHtml } = require('./report-html')

const USAGE = 'usage: node perf/src/analyze/cli.js <trace files or dirs…> [--transfer ID]… [--top N] [--html out.html] [--json]'
const DEFAULT_TOP = 5

/**
 * @param {string[]} argv
 * @param {{ stdout: { write: (s: string) => any }, stderr: { write: (s: string) => any } }} [io]
 * @returns {Promise<number>} the exit code
 */
async function main (argv, io = { stdout: process.stdout, stderr: process.stderr }) {
  const fail = (code, message) => { io.stderr.write(`gaps: ${message}\n`); return code }
  let args
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { transfer: { type: 'string', multiple: true }, top: { type: 'string' }, html: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }
    })
  } catch (err) {
    return fail(2, `${err.message}\n${USAGE}`)
  }
  const { values, positionals } = args
  if (values.help) { io.stdout.write(`${USAGE}\n`); return 0 }
  if (!positionals.length) return fail(2, `no trace files or directories given\n${USAGE}`)
  const top = values.top === undefined ? DEFAULT_TOP : Number(values.top)
  if (!Number.isInteger(top) || top < 1) return fail(2, `--top must be a positive integer, got ${values.top}`)

  let loaded
  try {
    loaded = await loadSpans(positionals)
  } catch (err) {
    return fail(1, err.message)
  }
  if (loaded.malformed.count) {
    const first = loaded.malformed.samples[0]
    io.stderr.write(`gaps: skipped ${loaded.malformed.count} malformed line${loaded.malformed.count === 1 ? '' : 's'} (first: ${first.file}:${first.line}: ${first.reason})\n`)
  }
  if (!loaded.spans.length) {
    return fail(1, `no spans found in ${positionals.join(', ')} (${loaded.files.length} .jsonl file${loaded.files.length === 1 ? '' : 's'} read). Is TRACING_EXPORTERS=file set?`)
  }
  const report = buildReport(loaded, { top, transferIds: values.transfer || [] })
  if (!report.transfers.length) {
    return fail(1, `${loaded.spans.length} spans read, but no request, stage or callback span carries switchyard.transfer_id: no transfers to report`)
  }
  if (report.missing.length) {
    return fail(1, `transfer${report.missing.length === 1 ? '' : 's'} not found among ${report.transfers.length}: ${report.missing.join(', ')}`)
  }
  if (values.html) {
    fs.mkdirSync(path.dirname(path.resolve(values.html)), { recursive: true })
    fs.writeFileSync(values.html, toHtml(report, { generatedAt: new Date() }))
    io.stderr.write(`gaps: wrote ${values.html}\n`)
  }
  io.stdout.write(values.json ? `${JSON.stringify(toJson(report), null, 2)}\n` : toText(report))
  return 0
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code }, (err) => {
    console.error(err)
    process.exitCode = 1
  })
}

module.exports = { main }
