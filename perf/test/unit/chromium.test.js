'use strict'

const { ensureChromium, CHROMIUM } = require('../../src/analyze/chromium')

/** A fake machine: which files exist, who we are, and what each command does. */
function machine ({ installed = false, root = true, aptGet = true, results = [] }) {
  const files = new Set([...(installed ? [CHROMIUM] : []), ...(aptGet ? ['/usr/bin/apt-get'] : [])])
  const ran = []
  return {
    ran,
    deps: {
      exists: (f) => files.has(f),
      isRoot: () => root,
      exec: async (argv) => {
        ran.push(argv.slice(2).join(' '))
        const code = results.length ? results.shift() : 0
        if (code === 0 && argv.includes('install')) files.add(CHROMIUM)
        return { code, stdout: '', stderr: code ? `E: failed (${argv.slice(3).join(' ')})` : '' }
      }
    }
  }
}

const INSTALL = '/usr/bin/apt-get install -y --no-install-recommends chromium'
const UPDATE = '/usr/bin/apt-get update'

test('an installed Chromium is used as it is', async () => {
  const m = machine({ installed: true, root: false })
  await expect(ensureChromium(m.deps)).resolves.toBe('/usr/bin/chromium')
  expect(m.ran).toEqual([])
})

test('root installs the Debian package; a failed install is retried after apt-get update', async () => {
  const first = machine({})
  await expect(ensureChromium(first.deps)).resolves.toBe(CHROMIUM)
  expect(first.ran).toEqual([INSTALL])

  const stale = machine({ results: [100, 0, 0] })
  await expect(ensureChromium(stale.deps)).resolves.toBe(CHROMIUM)
  expect(stale.ran).toEqual([INSTALL, UPDATE, INSTALL])
})

test('when it cannot be installed, the error says what to do', async () => {
  await expect(ensureChromium(machine({ root: false }).deps)).rejects.toThrow('only root can install it: run "sudo apt-get install -y --no-install-recommends chromium"')
  await expect(ensureChromium(machine({ aptGet: false }).deps)).rejects.toThrow('there is no apt-get')
  await expect(ensureChromium(machine({ results: [100, 100] }).deps)).rejects.toThrow(/apt-get update failed \(exit 100\)/)
  await expect(ensureChromium(machine({ results: [100, 0, 100] }).deps)).rejects.toThrow(/apt-get install chromium failed \(exit 100\):\nE: failed/)
})
