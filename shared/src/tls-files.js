'use strict'

// The TLS options of a client (Kafka or the database) from the PEM files the
// configuration names: `<PREFIX>_TLS_CA_FILE`, `_CERT_FILE` and `_KEY_FILE`.
// Read once, when the client is made, so a missing or unreadable file stops
// the process at start with the setting's name, not at its first connection
// with a bare ENOENT. The server's certificate and host name are always
// verified (rejectUnauthorized is Node's default and never turned off): a
// private CA is trusted by naming it, not by trusting everything.

const fs = require('node:fs')

const FILES = /** @type {const} */ ([['ca', 'CA_FILE'], ['cert', 'CERT_FILE'], ['key', 'KEY_FILE']])

/**
 * @param {Readonly<Record<string, any>>} config
 * @param {'KAFKA' | 'DB'} prefix
 * @param {(file: string) => Buffer} [read]
 * @returns {{ ca?: Buffer, cert?: Buffer, key?: Buffer, rejectUnauthorized: true } | undefined} undefined when `<PREFIX>_TLS` is off
 */
function tlsOptions (config, prefix, read = fs.readFileSync) {
  if (!config[`${prefix}_TLS`]) return undefined
  /** @type {{ ca?: Buffer, cert?: Buffer, key?: Buffer, rejectUnauthorized: true }} */
  const options = { rejectUnauthorized: true }
  for (const [option, suffix] of FILES) {
    const name = `${prefix}_TLS_${suffix}`
    const file = config[name]
    if (!file) continue
    let pem
    try {
      pem = read(file)
    } catch (err) {
      throw new Error(`${name}=${file}: cannot read it (${/** @type {NodeJS.ErrnoException} */ (err).code || /** @type {Error} */ (err).message})`, { cause: err })
    }
    if (!/-----BEGIN [A-Z0-9 ]+-----/.test(pem.toString('latin1'))) throw new Error(`${name}=${file}: not a PEM file (no -----BEGIN … ----- line)`)
    options[option] = pem
  }
  return options
}

module.exports = { tlsOptions }
