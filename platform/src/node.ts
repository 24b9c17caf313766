/** Node adapter of the local platform: `servePlatform(platform.fetch, { port })`. */
export { serveFetch, serveFetch as servePlatform, type NodeIncoming, type ServedFetch } from 'parley-kit/server';
