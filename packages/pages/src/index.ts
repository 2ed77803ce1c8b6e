export * from './page-renderer';
export * from './pages-plugin';
