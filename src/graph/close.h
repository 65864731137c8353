#ifdef __cplusplus
}
#endif
#endif /* FGL_GRAPH_H */

/* fgl:private */

#ifdef __cplusplus
}
#endif
#endif /* FGL_GRAPH_H_PRIVATE */

/* fgl:implementation */
#ifdef __cplusplus
}
#endif
#endif /* FGL_IMPLEMENTATION */

