import{r}from"./client-aIAZD17k.js";var e=r();export{e as r};
