'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const net = require('node:net')
const { createPortPicker, ephemeralRange } = require('../../src/bench/ports')

/** Listens on `port` until closed. */
async function occupy (port) {
  const s = net.createServer()
  await new Promise((resolve, reject) => {
    s.once('error', reject)
    s.listen(port, '127.0.0.1', () => resolve(undefined))
  })
  return s
}

test('the ephemeral range is read from the kernel file; unreadable or nonsense gives null', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ports-'))
  const file = path.join(dir, 'range')
  fs.writeFileSync(file, '32768\t60999\n')
  expect(ephemeralRange(file)).toEqual({ low: 32768, high: 60999 })
  fs.writeFileSync(file, 'junk')
  expect(ephemeralRange(file)).toBeNull()
  expect(ephemeralRange(path.join(dir, 'missing'))).toBeNull()
  fs.rmSync(dir, { recursive: true, force: true })
})

test('ports come from below the ephemeral range, each one listenable and never given twice', async () => {
  const { freePort } = createPortPicker({ range: { low: 32768, high: 60999 } })
  const ports = []
  for (let i = 0; i < 20; i++) ports.push(await freePort())
  expect(new Set(ports).size).toBe(20)
  for (const p of ports) {
    expect(p).toBeGreaterThanOrEqual(22767)
    expect(p).toBeLessThan(32768)
    ;(await occupy(p)).close()
  }
})

test('a port someone listens on is passed over', async () => {
  // The picker's ports for this range are 22767–32767; hold one of them.
  const range = { low: 32768, high: 60999 }
  let taken = null
  let port = 0
  for (port = 30000; !taken; port++) taken = await occupy(port).catch(() => null)
  port--
  try {
    const draws = [(port - 22767 + 0.5) / 10001, 0.1]
    const { freePort } = createPortPicker({ range, random: () => draws.shift() ?? Math.random() })
    const picked = await freePort()
    expect(draws).toHaveLength(0) // the held port was drawn first, then another
    expect(picked).not.toBe(port)
    expect(picked).toBeGreaterThanOrEqual(22767)
    expect(picked).toBeLessThan(32768)
  } finally {
    taken.close()
  }
})

test('without a known range it falls back to what the kernel offers', async () => {
  const { freePort } = createPortPicker({ range: null })
  const port = await freePort()
  expect(port).toBeGreaterThan(0)
  ;(await occupy(port)).close()
})
