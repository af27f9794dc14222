'use strict'

// The campaign warms a broker that started recently (campaign.js): its age
// comes from /proc.

const { spawn } = require('node:child_process')
const { once } = require('node:events')
const { processAgeS } = require('../../src/bench/accounting')

test("a process's age is the seconds since it started, and null once it is gone", async () => {
  // This process has run for as long as Node says, to the second.
  expect(Math.abs(/** @type {number} */ (processAgeS(process.pid)) - process.uptime())).toBeLessThanOrEqual(1.5)
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
  await once(child, 'spawn')
  expect(processAgeS(/** @type {number} */ (child.pid))).toBeLessThanOrEqual(1)
  child.kill('SIGKILL')
  await once(child, 'exit')
  expect(processAgeS(/** @type {number} */ (child.pid))).toBeNull()
})
