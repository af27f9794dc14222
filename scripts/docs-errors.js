'use strict'

// Prints the FSPIOP error table of docs/errors.md from the catalog, or with
// --write replaces the table in that file (between the markers). The unit test
// shared/test/unit/errors.test.js fails when the two differ.
//
//   node scripts/docs-errors.js           print the table
//   node scripts/docs-errors.js --write   update docs/errors.md

const fs = require('node:fs')
const path = require('node:path')
const { ERROR_CATALOG } = require('../shared/src/errors')

const DOC_FILE = path.join(__dirname, '..', 'docs', 'errors.md')
const START_MARKER = '<!-- errors:start -->'
const END_MARKER = '<!-- errors:end -->'

/**
 * @param {ReadonlyArray<import('../shared/src/errors/catalog').CatalogEntry>} catalog
 * @returns {string} a markdown table, one row per entry, ending with a newline
 */
function renderErrorTable (catalog) {
  const rows = catalog.map((e) => `| ${e.code} | ${e.key} | ${e.description} | ${e.httpStatus} |`)
  return ['| Code | Key | Description | HTTP status |', '| --- | --- | --- | --- |', ...rows, ''].join('\n')
}

/**
 * @param {string} doc
 * @param {string} table
 * @returns {string} doc with everything between the markers replaced by table
 */
function replaceTable (doc, table) {
  const start = doc.indexOf(START_MARKER)
  const end = doc.indexOf(END_MARKER)
  if (start === -1 || end < start) throw new Error(`${DOC_FILE} must contain ${START_MARKER} followed by ${END_MARKER}`)
  return `${doc.slice(0, start + START_MARKER.length)}\n${table}${doc.slice(end)}`
}

function main () {
  const table = renderErrorTable(ERROR_CATALOG)
  if (!process.argv.includes('--write')) {
    process.stdout.write(table)
    return
  }
  fs.writeFileSync(DOC_FILE, replaceTable(fs.readFileSync(DOC_FILE, 'utf8'), table))
  process.stdout.write(`Wrote ${ERROR_CATALOG.length} error codes to ${path.relative(process.cwd(), DOC_FILE)}\n`)
}

if (require.main === module) main()

module.exports = { renderErrorTable, replaceTable, START_MARKER, END_MARKER }
