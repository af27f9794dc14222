'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { cpuIdle } = require('../../src/bench/accounting')
const { idleNote } = require('../../src/bench/report-md')

/** A fake sysfs with these files. @param {Record<string, string>} files */
function fakeSys (files) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-sys-'))
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    fs.writeFileSync(path.join(root, file), text)
  }
  return root
}

describe('how idle vCPUs wait, in the report', () => {
  const roots = []
  afterAll(() => { for (const r of roots) fs.rmSync(r, { recursive: true, force: true }) })

  test('a haltpoll guest that never polls says so, and the report warns that hops wait for the host', () => {
    const sys = fakeSys({
      'devices/system/cpu/cpuidle/current_driver': 'haltpoll\n',
      'devices/system/cpu/cpuidle/current_governor_ro': 'haltpoll\n',
      'module/haltpoll/parameters/guest_halt_poll_ns': '0\n'
    })
    roots.push(sys)
    const idle = cpuIdle(sys)
    expect(idle).toEqual({ driver: 'haltpoll', governor: 'haltpoll', haltPollUs: 0 })
    expect(idleNote(idle)).toContain('halts at once (guest_halt_poll_ns=0)')
  })

  test('a polling window is reported in microseconds', () => {
    const sys = fakeSys({
      'devices/system/cpu/cpuidle/current_driver': 'haltpoll',
      'devices/system/cpu/cpuidle/current_governor': 'haltpoll',
      'module/haltpoll/parameters/guest_halt_poll_ns': '200000'
    })
    roots.push(sys)
    const idle = cpuIdle(sys)
    expect(idle.haltPollUs).toBe(200)
    expect(idleNote(idle)).toBe(' CPU idle: driver haltpoll, governor haltpoll, an idle vCPU polls for up to 200 µs before it halts.')
  })

  test('a machine without haltpoll reports its driver alone; one that says nothing adds nothing', () => {
    const sys = fakeSys({ 'devices/system/cpu/cpuidle/current_driver': 'intel_idle', 'devices/system/cpu/cpuidle/current_governor_ro': 'menu' })
    roots.push(sys)
    const idle = cpuIdle(sys)
    expect(idle).toEqual({ driver: 'intel_idle', governor: 'menu', haltPollUs: null })
    expect(idleNote(idle)).toBe(' CPU idle: driver intel_idle, governor menu.')
    const none = cpuIdle(path.join(sys, 'missing'))
    expect(none).toEqual({ driver: null, governor: null, haltPollUs: null })
    expect(idleNote(none)).toBe('')
    expect(idleNote(undefined)).toBe('')
  })
})
