'use strict'

// A private certificate authority for the local stack, made once with the
// openssl command under STACK_DIR/tls: a server certificate for 127.0.0.1,
// ::1 and localhost (the broker's secured listener and MariaDB present it)
// and a client certificate, so that KAFKA_TLS*, KAFKA_SASL_* and DB_TLS* can
// be tried, and are tested, against real servers on this machine. The CA's
// key signs nothing after that; none of it leaves the machine.

const fs = require('node:fs')
const path = require('node:path')
const { which, run } = require('./proc')
const apt = require('./apt')

const DAYS = 3650

/**
 * The files, all PEM. `serverKeystore` is the server's key with its
 * certificate and the CA's, in one file, as Kafka's PEM key store takes it.
 * @param {import('./paths').StackPaths} paths
 */
function tlsFiles (paths) {
  const dir = path.join(paths.stack, 'tls')
  return {
    dir,
    ca: path.join(dir, 'ca.pem'),
    serverCert: path.join(dir, 'server.pem'),
    serverKey: path.join(dir, 'server.key'),
    serverKeystore: path.join(dir, 'server-keystore.pem'),
    clientCert: path.join(dir, 'client.pem'),
    clientKey: path.join(dir, 'client.key')
  }
}

/** @param {(m: string) => void} say */
function findOpenssl (say) {
  if (which('openssl')) return
  if (!apt.canInstall()) throw new Error('openssl is required to make the local stack\'s TLS certificates; install it (apt-get install openssl)')
  say('installing openssl from Debian packages (once)…')
  apt.install(['openssl'], say)
  if (!which('openssl')) throw new Error('the openssl package did not provide openssl')
}

/**
 * Makes the CA and both certificates unless a complete set exists. They are
 * made in a staging directory renamed into place at the end, so a set is
 * whole or absent.
 * @param {import('./paths').StackPaths} paths @param {(m: string) => void} [say]
 */
function ensureTls (paths, say = () => {}) {
  const f = tlsFiles(paths)
  if (Object.values(f).every((file) => fs.existsSync(file))) return f
  findOpenssl(say)
  say('making the local stack\'s TLS certificates (once)…')
  const staging = `${f.dir}.tmp`
  fs.rmSync(staging, { recursive: true, force: true })
  fs.mkdirSync(staging, { recursive: true })
  const at = (/** @type {string} */ name) => path.join(staging, name)
  run('openssl', ['req', '-x509', '-new', '-newkey', 'rsa:2048', '-noenc', '-days', String(DAYS),
    '-subj', '/CN=Switchyard local stack CA', '-keyout', at('ca.key'), '-out', at('ca.pem'),
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'])
  const issue = (/** @type {string} */ name, /** @type {string} */ subject, /** @type {string[]} */ extensions) => {
    fs.writeFileSync(at(`${name}.ext`), `${extensions.join('\n')}\n`)
    run('openssl', ['req', '-new', '-newkey', 'rsa:2048', '-noenc', '-subj', subject, '-keyout', at(`${name}.key`), '-out', at(`${name}.csr`)])
    run('openssl', ['x509', '-req', '-in', at(`${name}.csr`), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial',
      '-days', String(DAYS), '-extfile', at(`${name}.ext`), '-out', at(`${name}.pem`)])
  }
  issue('server', '/CN=localhost', ['subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1', 'basicConstraints=CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth'])
  issue('client', '/CN=switchyard', ['basicConstraints=CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth'])
  fs.writeFileSync(at('server-keystore.pem'), [at('server.key'), at('server.pem'), at('ca.pem')].map((p) => fs.readFileSync(p, 'utf8')).join(''))
  for (const name of ['ca.key', 'server.key', 'client.key', 'server-keystore.pem']) fs.chmodSync(at(name), 0o600)
  fs.rmSync(f.dir, { recursive: true, force: true })
  fs.renameSync(staging, f.dir)
  return f
}

module.exports = { ensureTls, tlsFiles }
