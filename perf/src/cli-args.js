'use strict'

// The command lines of the perf/ tools. `--help` prints the tool's usage, and
// a mistyped option or a value that is not what the option takes is one line
// saying so, with the usage, and exit status 2 — not a stack trace.

const { parseArgs } = require('node:util')

/** A mistake on the command line: said in a line, with the usage, not as a crash. */
class UsageError extends Error {}
/** What a tool's main throws, through the `help` runCli gives it, for --help. */
class HelpRequested extends Error {}

/**
 * @param {{ options: NonNullable<import('node:util').ParseArgsConfig['options']>, args?: string[], allowPositionals?: boolean }} opts
 * @returns {{ values: Record<string, any>, positionals: string[], help: boolean }}
 */
function parseCli ({ options, args = process.argv.slice(2), allowPositionals = false }) {
  try {
    const { values, positionals } = parseArgs({ args, allowPositionals, options: { ...options, help: { type: 'boolean', short: 'h', default: false } } })
    return { values, positionals, help: Boolean(values.help) }
  } catch (err) {
    if (typeof err?.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS')) throw new UsageError(err.message)
    throw err
  }
}

/**
 * An option's value as a whole number from `min` (to `max`, when given).
 * @param {Record<string, any>} values @param {string} name @param {number} [min] @param {number} [max]
 */
function wholeNumber (values, name, min = 0, max = Infinity) {
  const text = String(values[name]).trim()
  const n = Number(text)
  if (text === '' || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} is a whole number ${max === Infinity ? `of at least ${min}` : `from ${min} to ${max}`}, not "${values[name]}"`)
  }
  return n
}

/**
 * An option's value as a comma-separated list of positive numbers (whole
 * ones with `whole`), at least one.
 * @param {Record<string, any>} values @param {string} name
 * @param {{ what: string, whole?: boolean }} opts what: how the usage error describes the list
 * @returns {number[]}
 */
function positiveList (values, name, { what, whole = false }) {
  const items = String(values[name]).split(',').map((x) => x.trim()).filter(Boolean)
  const bad = items.filter((x) => !(Number(x) > 0 && (whole ? Number.isSafeInteger(Number(x)) : Number.isFinite(Number(x)))))
  if (!items.length || bad.length) throw new UsageError(`--${name} is a list of ${what}${bad.length ? `, not ${bad.map((x) => `"${x}"`).join(', ')}` : ''}`)
  return items.map(Number)
}

/**
 * Runs a tool's main: its usage for --help, a usage error as a line and exit
 * status 2, anything else as the error it is and exit status 1.
 * @param {string} usage
 * @param {(help: () => never) => Promise<void>} main given `help`, which ends it with the usage and exit status 0
 * @param {{ log?: (s: string) => void, error?: (s: any) => void, exit?: (code: number) => never }} [io]
 */
function runCli (usage, main, { log = console.log, error = console.error, exit = process.exit } = {}) {
  /** @returns {never} */
  const help = () => { throw new HelpRequested() }
  return main(help).catch((err) => {
    if (err instanceof HelpRequested) {
      log(`usage: ${usage}`)
      return exit(0)
    }
    if (err instanceof UsageError) {
      error(`${err.message}\nusage: ${usage}`)
      return exit(2)
    }
    error(err)
    return exit(1)
  })
}

module.exports = { parseCli, wholeNumber, positiveList, runCli, UsageError }
