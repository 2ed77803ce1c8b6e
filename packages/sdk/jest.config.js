module.exports = require('../../jest.preset.js')(__dirname, '@usdc-card-gateway/sdk');
