'use strict'

// `npm install` warns (EBADENGINE) about every installed package whose
// `engines.node` does not accept the Node it runs on. The project supports
// every Node its own `engines` accepts, so each locked package has to accept
// the oldest of them, and the container image's.

const fs = require('node:fs')
const path = require('node:path')
const semver = require('semver')
const { engines } = require('../../package.json')
const { packages } = require('../../package-lock.json')

// Each locked package (not the workspaces themselves) that declares a Node range.
const declared = Object.entries(packages)
  .filter(([key, pkg]) => key.includes('node_modules/') && typeof pkg.engines?.node === 'string')
  .map(([key, pkg]) => ({ name: key.split('node_modules/').pop(), range: pkg.engines.node }))

/** @param {string} version @returns {string[]} the locked packages that refuse that Node */
const refusing = (version) => declared
  .filter(({ range }) => !semver.satisfies(version, range))
  .map(({ name, range }) => `${name} (${range})`)

test('every locked package accepts the oldest Node the project supports', () => {
  expect(refusing(semver.minVersion(engines.node).version)).toEqual([])
})

test("the container image's Node is one the project and its packages accept", () => {
  const dockerfile = fs.readFileSync(path.join(__dirname, '..', '..', 'Dockerfile'), 'utf8')
  const majors = [...dockerfile.matchAll(/^FROM node:(\d+)/gm)].map((m) => Number(m[1]))
  expect(majors.length).toBeGreaterThan(0)
  for (const major of majors) {
    // The tag follows the major's latest release; its first is the strictest check.
    const image = `${major}.0.0`
    expect({ major, accepted: semver.satisfies(image, engines.node) }).toEqual({ major, accepted: true })
    expect({ major, refused: refusing(image) }).toEqual({ major, refused: [] })
  }
})
