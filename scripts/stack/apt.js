'use strict'

// Debian packages the local stack installs itself when it runs as root:
// MariaDB, and Maven when it is missing. Packages go in without their
// maintainer scripts starting system services (a system MariaDB on 3306 is
// not wanted, and a container has no init to run it).

const fs = require('node:fs')
const { which, run, isRoot } = require('./proc')

// policy-rc.d is Debian's switch for "do not start services from maintainer
// scripts". Ours carries this line: one left behind by an install that was
// killed is then recognised as ours on the next run and removed, while a
// policy-rc.d without it is the machine's own and is never touched.
const POLICY_FILE = '/usr/sbin/policy-rc.d'
const POLICY_MARKER = '# switchyard local stack: temporary, while it installs packages; removed afterwards'

/** Whether a policy-rc.d's text is ours (has the marker line). @param {string} text */
const isOurPolicy = (text) => text.split('\n').includes(POLICY_MARKER)

/**
 * Removes a policy-rc.d this stack wrote and did not get to remove (the run
 * was killed while installing): left in place it would stop every later
 * package from starting its service, on the whole machine. Needs root.
 * @param {(m: string) => void} say
 * @param {string} [file]
 */
function removeLeftoverPolicy (say, file = POLICY_FILE) {
  let text
  try { text = fs.readFileSync(file, 'utf8') } catch { return false }
  if (!isOurPolicy(text)) return false
  fs.rmSync(file, { force: true })
  say(`removed ${file}, left behind by an interrupted package install of the local stack`)
  return true
}

/** Whether this process may install packages itself. */
const canInstall = () => isRoot() && Boolean(which('apt-get'))

/**
 * Installs Debian packages, retrying once after `apt-get update` (a fresh
 * container has no package lists, an old one stale ones).
 * @param {string[]} packages
 * @param {(m: string) => void} say
 */
function install (packages, say) {
  removeLeftoverPolicy(say)
  const addedPolicy = !fs.existsSync(POLICY_FILE)
  if (addedPolicy) fs.writeFileSync(POLICY_FILE, `#!/bin/sh\n${POLICY_MARKER}\nexit 101\n`, { mode: 0o755 })
  const env = aptEnv()
  const args = ['install', '-y', '-q', '--no-install-recommends', ...packages]
  try {
    try {
      run('apt-get', args, { env })
    } catch {
      run('apt-get', ['update', '-q'], { env })
      run('apt-get', args, { env })
    }
  } finally {
    if (addedPolicy) fs.rmSync(POLICY_FILE, { force: true })
  }
}

function aptEnv () {
  const { childEnv } = require('../../shared/src/config')
  return childEnv({ DEBIAN_FRONTEND: 'noninteractive' })
}

module.exports = { install, canInstall, removeLeftoverPolicy, isOurPolicy, POLICY_MARKER }
