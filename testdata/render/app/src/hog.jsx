import { createRoot } from 'react-dom/client'

// Allocates without bound.
const keep = []
function grow() {
  for (let i = 0; i < 50; i++) keep.push(new Array(1 << 20).fill(i))
  setTimeout(grow, 0)
}
createRoot(document.getElementById('root')).render(<main><h1>Memory hog</h1></main>)
grow()
