'use strict'

// The switch's V8 flags are set wherever its long-running processes start:
// the npm start scripts, the image (NODE_OPTIONS, which Node restricts to a
// few flags, plus CMD), docker-compose.yml and the Helm chart. The benchmark
// runs the switch with NODE_FLAGS (perf/src/bench/sut.js) because that is
// how it is deployed; this keeps every place saying the same.

const fs = require('node:fs')
const path = require('node:path')
const { parse } = require('yaml')
const { NODE_FLAGS } = require('../../perf/src/bench/sut')

const root = path.join(__dirname, '..', '..')
const read = (/** @type {string} */ file) => fs.readFileSync(path.join(root, file), 'utf8')
const flagsIn = (/** @type {string[]} */ words) => words.filter((w) => w.startsWith('--'))

const dockerfile = read('Dockerfile')
const nodeOptions = flagsIn((/^ENV NODE_OPTIONS="?([^"\n]*)"?$/m.exec(dockerfile) || ['', ''])[1].split(/\s+/))

test('npm start scripts start the API and the handlers with the flags', () => {
  for (const pkg of ['package.json', 'api-adapter/package.json', 'handlers/package.json']) {
    const start = JSON.parse(read(pkg)).scripts.start
    expect({ pkg, flags: flagsIn(start.split(/\s+/)) }).toEqual({ pkg, flags: NODE_FLAGS })
  }
})

test('the image, docker-compose.yml and the Helm chart run the API and the handlers with the flags', () => {
  /** @type {Record<string, string[]>} the commands, each run in the image (so with its NODE_OPTIONS) */
  const commands = {}
  commands['Dockerfile CMD'] = JSON.parse((/^CMD (\[.*\])$/m.exec(dockerfile) || ['', '[]'])[1])
  const compose = parse(read('docker-compose.yml'), { merge: true })
  for (const name of ['api-adapter', 'prepare', 'notification']) commands[`compose ${name}`] = compose.services[name].command
  for (const template of ['api-adapter.yaml', 'handlers.yaml']) {
    const list = /"command" \(list ((?:"[^"]*" ?)+)\)/.exec(read(`helm/switchyard/templates/${template}`))
    commands[`chart ${template}`] = list ? [...list[1].matchAll(/"([^"]*)"/g)].map((m) => m[1]) : []
  }
  for (const [where, command] of Object.entries(commands)) {
    expect({ where, node: command[0] }).toEqual({ where, node: 'node' })
    expect({ where, flags: [...nodeOptions, ...flagsIn(command)].sort() }).toEqual({ where, flags: [...NODE_FLAGS].sort() })
  }
})
