import { createRoot } from 'react-dom/client'

// Tries every way a page has to reach addresses a fetch may not: loopback
// (v4, v6, by name), link-local metadata, a name resolving to a private
// address, and redirects ending at them. ?port= is the canary's port.
const port = new URLSearchParams(location.search).get('port') || '9'
const targets = [
  `http://127.0.0.1:${port}/x`, `http://[::1]:${port}/x`, `http://localhost:${port}/x`,
  'http://169.254.169.254/latest/meta-data/', `http://private.test:${port}/x`,
  `/redirect?to=${encodeURIComponent(`http://127.0.0.1:${port}/redirected`)}`,
  `/redirect?to=${encodeURIComponent(`http://private.test:${port}/redirected`)}`,
  `https://127.0.0.1:${port}/x`,
]
fetch('/api/article.json?own=1')
for (const u of targets) {
  fetch(u).catch(() => {})
  try { const x = new XMLHttpRequest(); x.open('GET', u); x.send() } catch (e) {}
  const img = document.createElement('img'); img.src = u; document.body.appendChild(img)
  const f = document.createElement('iframe'); f.src = u; document.body.appendChild(f)
  const s = document.createElement('script'); s.src = u; document.body.appendChild(s)
  const l = document.createElement('link'); l.rel = 'stylesheet'; l.href = u; document.head.appendChild(l)
  try { new WebSocket(new URL(u, location.href).href.replace(/^http/, 'ws')) } catch (e) {}
  try { new EventSource(u) } catch (e) {}
  try { navigator.sendBeacon(u, 'x') } catch (e) {}
  try { window.open(u) } catch (e) {}
}
try { navigator.serviceWorker && navigator.serviceWorker.register('/sw.js') } catch (e) {}
try {
  const pc = new RTCPeerConnection({ iceServers: [{ urls: `stun:127.0.0.1:${port}` }] })
  pc.createDataChannel('x'); pc.createOffer().then((o) => pc.setLocalDescription(o))
} catch (e) {}
createRoot(document.getElementById('root')).render(<main><h1>Tried {targets.length} targets</h1></main>)
setTimeout(() => { location.href = targets[0] }, 400)
