export { TEST_CARDS, type TestCard } from './services/card-check';
