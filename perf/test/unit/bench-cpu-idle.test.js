'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { cpuIdle } = require('../../src/bench/accounting')
const { idleNote } = require('../../src/bench/report-md')

const DRIVER = 'devices/system/cpu/cpuidle/current_driver'
const GOVERNOR = 'devices/system/cpu/cpuidle/current_governor'
const GOVERNOR_RO = 'devices/system/cpu/cpuidle/current_governor_ro'
const HALT_POLL_NS = 'module/haltpoll/parameters/guest_halt_poll_ns'

describe('how idle vCPUs wait, in the report', () => {
  /** @type {string[]} */
  const roots = []
  afterAll(() => { for (const r of roots) fs.rmSync(r, { recursive: true, force: true }) })

  /** A fake sysfs with these files (removed after the tests). @param {Record<string, string>} files */
  function fakeSys (files) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-sys-'))
    roots.push(root)
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
      fs.writeFileSync(path.join(root, file), text)
    }
    return root
  }

  test('a haltpoll guest that never polls says so, and the report warns that hops wait for the host', () => {
    const idle = cpuIdle(fakeSys({ [DRIVER]: 'haltpoll\n', [GOVERNOR_RO]: 'haltpoll\n', [HALT_POLL_NS]: '0\n' }))
    expect(idle).toEqual({ driver: 'haltpoll', governor: 'haltpoll', haltPollUs: 0 })
    expect(idleNote(idle)).toContain('halts at once (guest_halt_poll_ns=0)')
  })

  test('a polling window is reported in microseconds', () => {
    const idle = cpuIdle(fakeSys({ [DRIVER]: 'haltpoll', [GOVERNOR]: 'haltpoll', [HALT_POLL_NS]: '200000' }))
    expect(idle.haltPollUs).toBe(200)
    expect(idleNote(idle)).toBe(' CPU idle: driver haltpoll, governor haltpoll, an idle vCPU polls for up to 200 µs before it halts.')
  })

  test('a machine without haltpoll reports its driver alone; one that says nothing adds nothing', () => {
    const sys = fakeSys({ [DRIVER]: 'intel_idle', [GOVERNOR_RO]: 'menu' })
    const idle = cpuIdle(sys)
    expect(idle).toEqual({ driver: 'intel_idle', governor: 'menu', haltPollUs: null })
    expect(idleNote(idle)).toBe(' CPU idle: driver intel_idle, governor menu.')
    const none = cpuIdle(path.join(sys, 'missing'))
    expect(none).toEqual({ driver: null, governor: null, haltPollUs: null })
    expect(idleNote(none)).toBe('')
    expect(idleNote(undefined)).toBe('')
  })
})
