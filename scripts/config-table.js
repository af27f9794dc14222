'use strict'

// Prints the configuration table of README.md from the schema, or with --write
// replaces the table between the markers (creating README.md if there is none).
// test/unit/readme-config.test.js fails when the two differ.
//
//   node scripts/config-table.js           print the table
//   node scripts/config-table.js --write   update README.md

const fs = require('node:fs')
const path = require('node:path')
const { schema } = require('../shared/src/config-schema')

const README_FILE = path.join(__dirname, '..', 'README.md')
const START_MARKER = '<!-- config:start -->'
const END_MARKER = '<!-- config:end -->'

/** @param {string} text */
const cell = (text) => text.replace(/\|/g, '\\|')

/**
 * @param {import('../shared/src/config-schema').VarSpec['default']} value
 * @returns {string}
 */
function toDefaultCell (value) {
  const text = Array.isArray(value) ? value.join(',') : String(value)
  return text === '' ? '*(empty)*' : `\`${cell(text)}\``
}

/**
 * @param {Record<string, import('../shared/src/config-schema').VarSpec>} vars
 * @returns {string} a markdown table with a bold row per group, ending with a newline
 */
function renderConfigTable (vars) {
  const rows = ['| Variable | Default | Description |', '| --- | --- | --- |']
  let group
  for (const [name, spec] of Object.entries(vars)) {
    if (spec.group !== group) {
      group = spec.group
      rows.push(`| **${group}** | | |`)
    }
    rows.push(`| \`${name}\` | ${toDefaultCell(spec.default)} | ${cell(spec.description)} |`)
  }
  return rows.join('\n') + '\n'
}

/**
 * @param {string} doc
 * @returns {string | undefined} the text between the markers, if both are there
 */
function betweenMarkers (doc) {
  const start = doc.indexOf(START_MARKER)
  const end = doc.indexOf(END_MARKER)
  if (start === -1 || end < start) return undefined
  return doc.slice(start + START_MARKER.length, end)
}

/**
 * @param {string} doc
 * @param {string} table
 * @returns {string} doc with everything between the markers replaced by table
 */
function replaceTable (doc, table) {
  if (betweenMarkers(doc) === undefined) throw new Error(`${README_FILE} must contain ${START_MARKER} followed by ${END_MARKER}`)
  const start = doc.indexOf(START_MARKER) + START_MARKER.length
  return `${doc.slice(0, start)}\n${table}${doc.slice(doc.indexOf(END_MARKER))}`
}

/** @param {string} table */
const newReadme = (table) => `# Switchyard\n\n## Configuration\n\n${START_MARKER}\n${table}${END_MARKER}\n`

function main () {
  const table = renderConfigTable(schema)
  if (!process.argv.includes('--write')) {
    process.stdout.write(table)
    return
  }
  const doc = fs.existsSync(README_FILE) ? replaceTable(fs.readFileSync(README_FILE, 'utf8'), table) : newReadme(table)
  fs.writeFileSync(README_FILE, doc)
  process.stdout.write(`Wrote ${Object.keys(schema).length} variables to ${path.relative(process.cwd(), README_FILE)}\n`)
}

if (require.main === module) main()

module.exports = { renderConfigTable, replaceTable, betweenMarkers, START_MARKER, END_MARKER, README_FILE }
