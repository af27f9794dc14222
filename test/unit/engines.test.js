'use strict'

// `npm install` warns (EBADENGINE) about every installed package whose
// `engines.node` does not accept the Node it runs on. The project supports
// every Node its own `engines` accepts, so each locked package has to accept
// the oldest of them, and the container image's.

const fs = require('node:fs')
const path = require('node:path')
const semver = require('semver')

const ROOT = path.join(__dirname, '..', '..')
const rootEngines = require('../../package.json').engines.node
const { packages } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'))

/** @returns {Array<[string, string]>} each locked package's name and its engines.node */
const lockedEngines = () => Object.entries(packages)
  .filter(([key, pkg]) => key.includes('node_modules/') && typeof pkg.engines?.node === 'string')
  .map(([key, pkg]) => [key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length), pkg.engines.node])

test('every locked package accepts the oldest Node the project supports', () => {
  const oldest = semver.minVersion(rootEngines).version
  const refused = lockedEngines()
    .filter(([, range]) => !semver.satisfies(oldest, range))
    .map(([name, range]) => `${name} (${range})`)
  expect(refused).toEqual([])
})

test("the container image's Node is one the project and its packages accept", () => {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
  const majors = [...dockerfile.matchAll(/^FROM node:(\d+)/gm)].map((m) => Number(m[1]))
  expect(majors.length).toBeGreaterThan(0)
  for (const major of majors) {
    const image = `${major}.0.0`
    expect({ major, accepted: semver.satisfies(image, rootEngines) }).toEqual({ major, accepted: true })
    const refused = lockedEngines().filter(([, range]) => !semver.satisfies(image, range)).map(([name]) => name)
    expect({ major, refused }).toEqual({ major, refused: [] })
  }
})
