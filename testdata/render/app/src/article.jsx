import { createRoot } from 'react-dom/client'
import { Story } from './Story.jsx'

createRoot(document.getElementById('root')).render(
  <main>
    <Story title="Life in the tide pools" lead="A client-rendered article: the HTML the server sends has an empty root." />
  </main>,
)
