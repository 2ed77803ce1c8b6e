module.exports = require('../../jest.preset.js')(__dirname, '@gateway/sandbox-provider');
