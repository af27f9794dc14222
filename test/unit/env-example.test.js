'use strict'

const fs = require('node:fs')
const { renderEnvExample, ENV_FILE } = require('../../scripts/env-example')
const { loadConfig, schema } = require('../../shared/src/config')

const FIX = 'run `node scripts/env-example.js --write`'

/** @param {string} text @returns {Array<[string, string]>} the assignments, in file order */
const assignments = (text) => text.split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)])

describe('.env.example', () => {
  const text = fs.readFileSync(ENV_FILE, 'utf8')

  test(`is exactly what scripts/env-example.js generates (${FIX})`, () => {
    expect(text).toBe(renderEnvExample(schema))
  })

  test('sets every schema variable once, in schema order, to its default', () => {
    const pairs = assignments(text)
    expect(pairs.map(([name]) => name)).toEqual(Object.keys(schema))
    expect(loadConfig(Object.fromEntries(pairs))).toEqual(loadConfig({}))
  })

  test('heads each group and describes each variable', () => {
    for (const group of new Set(Object.values(schema).map((spec) => spec.group))) expect(text).toContain(`\n# --- ${group} ---\n`)
    for (const [name, spec] of Object.entries(schema)) expect(text).toContain(`# ${spec.description}\n${name}=`)
  })

  test('would no longer match after a variable is added to the schema', () => {
    const grown = { ...schema, NEW_VAR: { group: 'process', type: 'string', default: 'x', description: 'New.' } }
    expect(renderEnvExample(grown)).not.toBe(text)
  })
})
