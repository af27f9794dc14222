'use strict'

// The perf/ tools' command lines: --help, and mistakes said in a line with
// the usage and exit status 2 rather than as a stack trace.

const { parseCli, wholeNumber, positiveList, runCli, UsageError } = require('../../src/cli-args')

const options = /** @type {const} */ ({ transfers: { type: 'string', default: '10' }, quick: { type: 'boolean', default: false } })

test('parseCli gives the values, the positionals it allows, and whether --help or -h was asked for', () => {
  expect(parseCli({ options, args: ['--transfers', '5'] })).toEqual({ values: { transfers: '5', quick: false, help: false }, positionals: [], help: false })
  expect(parseCli({ options, args: ['-h'] }).help).toBe(true)
  expect(parseCli({ options, args: ['--quick', '--help'] }).help).toBe(true)
  expect(parseCli({ options: {}, args: ['a.json', 'b.json'], allowPositionals: true }).positionals).toEqual(['a.json', 'b.json'])
})

test('an unknown option, a missing value or a stray argument is a usage error', () => {
  for (const args of [['--transfer', '5'], ['--transfers'], ['extra'], ['--quick=yes']]) {
    expect(() => parseCli({ options, args })).toThrow(UsageError)
  }
  expect(() => parseCli({ options, args: ['--transfer', '5'] })).toThrow("Unknown option '--transfer'")
})

test('wholeNumber takes whole numbers from its minimum up and names the option otherwise', () => {
  expect(wholeNumber({ n: '0' }, 'n', 0)).toBe(0)
  expect(wholeNumber({ n: ' 10000000 ' }, 'n', 1)).toBe(10000000)
  for (const bad of ['', 'abc', '1.5', '-1', '1e400', 'Infinity']) {
    expect(() => wholeNumber({ n: bad }, 'n', 0)).toThrow(new UsageError(`--n is a whole number of at least 0, not "${bad}"`))
  }
  expect(() => wholeNumber({ n: '1' }, 'n', 2)).toThrow('--n is a whole number of at least 2, not "1"')
})

test('wholeNumber with a maximum names the range', () => {
  expect(wholeNumber({ 'fill-factor': '100' }, 'fill-factor', 10, 100)).toBe(100)
  for (const bad of ['9', '101']) {
    expect(() => wholeNumber({ 'fill-factor': bad }, 'fill-factor', 10, 100)).toThrow(new UsageError(`--fill-factor is a whole number from 10 to 100, not "${bad}"`))
  }
})

test('positiveList takes comma-separated positive numbers, whole ones when asked, and names the ones it does not take', () => {
  expect(positiveList({ rates: '100, 250.5,400' }, 'rates', { what: 'rates' })).toEqual([100, 250.5, 400])
  expect(positiveList({ sizes: '1,100' }, 'sizes', { what: 'sizes', whole: true })).toEqual([1, 100])
  expect(() => positiveList({ sizes: '1,2.5,0' }, 'sizes', { what: 'whole sizes', whole: true })).toThrow(new UsageError('--sizes is a list of whole sizes, not "2.5", "0"'))
  expect(() => positiveList({ rates: 'abc,-5,Infinity' }, 'rates', { what: 'rates' })).toThrow('--rates is a list of rates, not "abc", "-5", "Infinity"')
  expect(() => positiveList({ rates: ' , ' }, 'rates', { what: 'rates' })).toThrow(new UsageError('--rates is a list of rates'))
})

describe('runCli', () => {
  /** What a run printed and how it exited. */
  function io () {
    const seen = { out: /** @type {string[]} */ ([]), err: /** @type {any[]} */ ([]), code: /** @type {number | null} */ (null) }
    class Exit extends Error {}
    return {
      seen,
      Exit,
      io: {
        log: (/** @type {string} */ s) => { seen.out.push(s) },
        error: (/** @type {any} */ s) => { seen.err.push(s) },
        exit: /** @type {(code: number) => never} */ (code) => { seen.code = code; throw new Exit() }
      }
    }
  }

  test('--help prints the usage and exits 0', async () => {
    const t = io()
    await runCli('tool [--n 1]', async (help) => { help() }, t.io).catch((err) => { if (!(err instanceof t.Exit)) throw err })
    expect(t.seen).toEqual({ out: ['usage: tool [--n 1]'], err: [], code: 0 })
  })

  test('a usage error is its message and the usage, exit status 2', async () => {
    const t = io()
    await runCli('tool [--n 1]', async () => { throw new UsageError('--n is a whole number of at least 1, not "x"') }, t.io).catch((err) => { if (!(err instanceof t.Exit)) throw err })
    expect(t.seen).toEqual({ out: [], err: ['--n is a whole number of at least 1, not "x"\nusage: tool [--n 1]'], code: 2 })
  })

  test('any other failure is reported as the error it is, exit status 1', async () => {
    const t = io()
    const failure = new Error('MariaDB went away')
    await runCli('tool', async () => { throw failure }, t.io).catch((err) => { if (!(err instanceof t.Exit)) throw err })
    expect(t.seen).toEqual({ out: [], err: [failure], code: 1 })
  })

  test('a main that finishes exits as it chooses', async () => {
    const t = io()
    await runCli('tool', async () => {}, t.io)
    expect(t.seen).toEqual({ out: [], err: [], code: null })
  })
})
