'use strict'

/**
 * The /metrics text of every switch process, in the order of `urls`; null
 * when any of them did not answer (a step's figures then leave that part out).
 * @param {string[]} urls
 * @returns {Promise<string[] | null>}
 */
async function scrapeAll (urls) {
  try {
    return await Promise.all(urls.map(async (url) => {
      const res = await fetch(url)
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`)
      return res.text()
    }))
  } catch {
    return null
  }
}

module.exports = { scrapeAll }
