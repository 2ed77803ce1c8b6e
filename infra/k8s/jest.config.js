module.exports = require('../../jest.preset.js')(__dirname, '@gateway/k8s-manifests');
