#!/usr/bin/env node
'use strict'

// Applies database migrations (the Helm pre-install/upgrade hook and the
// docker-compose `migrate` service run this).

const { migrate } = require('./stack/index')
const { loadConfig } = require('../shared/src/config')

const config = loadConfig()
migrate(config, config.DB_NAME, (m) => console.log(`[migrate] ${m}`))
  .then(() => console.log(`[migrate] ${config.DB_NAME} is up to date`))
  .catch((err) => { console.error(`[migrate] ${err.message}`); process.exit(1) })
