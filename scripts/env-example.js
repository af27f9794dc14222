'use strict'

// Prints .env.example from the configuration schema, or with --write updates
// the file. test/unit/env-example.test.js fails when the two differ, so a
// variable added to the schema without regenerating is caught.
//
//   node scripts/env-example.js           print the file
//   node scripts/env-example.js --write   update .env.example

const fs = require('node:fs')
const path = require('node:path')
const { schema } = require('../shared/src/config-schema')

const ENV_FILE = path.join(__dirname, '..', '.env.example')

/**
 * @param {import('../shared/src/config-schema').VarSpec['default']} value
 * @returns {string} the value as it is written in an env file
 */
function toEnvValue (value) {
  return Array.isArray(value) ? value.join(',') : String(value)
}

/**
 * @param {Record<string, import('../shared/src/config-schema').VarSpec>} vars
 * @returns {string} every variable at its default, in schema order, grouped
 */
function renderEnvExample (vars) {
  const lines = [
    '# Every variable Switchyard reads, at its default. Generated from',
    '# shared/src/config-schema.js by `node scripts/env-example.js --write`.'
  ]
  let group
  for (const [name, spec] of Object.entries(vars)) {
    if (spec.group !== group) {
      group = spec.group
      lines.push('', `# --- ${group} ---`)
    }
    lines.push(`# ${spec.description}`, `${name}=${toEnvValue(spec.default)}`)
  }
  return lines.join('\n') + '\n'
}

function main () {
  const text = renderEnvExample(schema)
  if (!process.argv.includes('--write')) {
    process.stdout.write(text)
    return
  }
  fs.writeFileSync(ENV_FILE, text)
  process.stdout.write(`Wrote ${Object.keys(schema).length} variables to ${path.relative(process.cwd(), ENV_FILE)}\n`)
}

if (require.main === module) main()

module.exports = { renderEnvExample, toEnvValue, ENV_FILE }
