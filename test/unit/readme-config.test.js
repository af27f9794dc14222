'use strict'

const fs = require('node:fs')
const { renderConfigTable, replaceTable, betweenMarkers, START_MARKER, END_MARKER, README_FILE } = require('../../scripts/config-table')
const { schema } = require('../../shared/src/config-schema')

describe('README.md configuration table', () => {
  test('is exactly the generated table (run `node scripts/config-table.js --write`)', () => {
    const readme = fs.readFileSync(README_FILE, 'utf8')
    expect(betweenMarkers(readme)).toBe(`\n${renderConfigTable(schema)}`)
  })

  test('has one row per schema variable, in schema order', () => {
    const names = renderConfigTable(schema).split('\n')
      .map((row) => /^\| `([A-Z0-9_]+)` \|/.exec(row))
      .filter(Boolean)
      .map((match) => match[1])
    expect(names).toEqual(Object.keys(schema))
  })

  test('escapes pipes so a description cannot break the table', () => {
    const table = renderConfigTable({ A: { group: 'g', type: 'string', default: 'x|y', description: 'one | two' } })
    expect(table).toContain('| `A` | `x\\|y` | one \\| two |')
  })

  test('replacing the table leaves the rest of the file alone', () => {
    const doc = `# Title\n\nintro\n${START_MARKER}\nold table\n${END_MARKER}\n\noutro\n`
    expect(replaceTable(doc, 'new table\n')).toBe(`# Title\n\nintro\n${START_MARKER}\nnew table\n${END_MARKER}\n\noutro\n`)
    expect(() => replaceTable('# no markers\n', 'x\n')).toThrow(START_MARKER)
  })
})
