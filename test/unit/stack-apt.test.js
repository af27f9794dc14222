'use strict'

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { isOurPolicy, removeLeftoverPolicy, POLICY_MARKER } = require('../../scripts/stack/apt')

// Docker's Debian images ship this one; an administrator may write the bare form.
const DOCKER_POLICY = '#!/bin/sh\n\n# For most Docker users, "apt-get install" only happens during "docker build",\n# where starting services doesn\'t work and often fails in humorous ways. This\n# prevents those failures by stopping the services from attempting to start.\n\nexit 101\n'
const BARE_POLICY = '#!/bin/sh\nexit 101\n'
const OURS = `#!/bin/sh\n${POLICY_MARKER}\nexit 101\n`

describe("the stack's policy-rc.d", () => {
  test('is recognised by its marker line, and only by it', () => {
    expect(POLICY_MARKER).toMatch(/^# .*switchyard/)
    expect(isOurPolicy(OURS)).toBe(true)
    expect(isOurPolicy(DOCKER_POLICY)).toBe(false)
    expect(isOurPolicy(BARE_POLICY)).toBe(false)
    // The marker must be a line of its own, not a mention inside another.
    expect(isOurPolicy(`#!/bin/sh\n# not ${POLICY_MARKER}\nexit 101\n`)).toBe(false)
  })

  describe('left behind by a killed install', () => {
    let dir, file
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stack-apt-'))
      file = path.join(dir, 'policy-rc.d')
    })
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

    test('is removed, and the removal said', () => {
      fs.writeFileSync(file, OURS)
      const said = []
      expect(removeLeftoverPolicy((m) => said.push(m), file)).toBe(true)
      expect(fs.existsSync(file)).toBe(false)
      expect(said).toEqual([expect.stringContaining(file)])
    })

    test("while the machine's own policy-rc.d, or none, is left alone", () => {
      for (const text of [DOCKER_POLICY, BARE_POLICY]) {
        fs.writeFileSync(file, text)
        expect(removeLeftoverPolicy(() => {}, file)).toBe(false)
        expect(fs.readFileSync(file, 'utf8')).toBe(text)
      }
      fs.rmSync(file)
      expect(removeLeftoverPolicy(() => {}, file)).toBe(false)
    })
  })
})
