'use strict'

// A bench that is stopped (Ctrl-C, kill) must not leave a switch running:
// every process it started is signalled by stopChildren().

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startProcess, stopChildren } = require('../../src/bench/sut')

let dir
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-children-'))
  // A process that would run for a minute, as a switch would for a whole campaign.
  fs.writeFileSync(path.join(dir, 'long.js'), 'setTimeout(() => {}, 60000)\n')
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

test('every process still running is stopped with SIGTERM; one that has exited is not counted', async () => {
  const say = () => {}
  const a = startProcess(dir, 'long.js', {}, say)
  const b = startProcess(dir, 'long.js', {}, say)
  const done = startProcess(dir, 'long.js', {}, say)
  await done.stop()
  expect(a.running() && b.running()).toBe(true)
  expect(stopChildren()).toBe(2)
  expect(await a.exited).toEqual({ code: null, signal: 'SIGTERM' })
  expect(await b.exited).toEqual({ code: null, signal: 'SIGTERM' })
  expect(stopChildren()).toBe(0)
})
