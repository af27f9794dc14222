#!/usr/bin/env node
'use strict'

// Creates the Kafka topics with their configured partition counts.

const { createTopics } = require('./stack/index')
const { loadConfig } = require('../shared/src/config')

createTopics(loadConfig(), (m) => console.log(`[topics] ${m}`))
  .then(() => console.log('[topics] all topics exist'))
  .catch((err) => { console.error(`[topics] ${err.message}`); process.exit(1) })
